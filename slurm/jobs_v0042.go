package slurm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func (v *v0042) jobs(ctx context.Context) ([]planner.Job, string, error) {
	return v.c.readJobList(v.raw.SlurmV0042GetJobs(ctx, nil))
}

func (v *v0042) job(ctx context.Context, id int64) (planner.Job, error) {
	resp, err := v.raw.SlurmV0042GetJob(ctx, jobIDString(id), nil)
	if err != nil {
		return planner.Job{}, fmt.Errorf("read job %d: %w", id, err)
	}
	var body jobsRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return planner.Job{}, fmt.Errorf("read job %d: %w", id, err)
	}
	for i := range body.Jobs {
		if body.Jobs[i].JobID == id {
			return jobFromV0042(&body.Jobs[i]), nil
		}
	}
	return planner.Job{}, fmt.Errorf("read job %d: %w", id, ErrNotFound)
}

func clusterV0042(m *api.V0042OpenapiMeta) string {
	if m == nil || m.Slurm == nil {
		return ""
	}
	return deref(m.Slurm.Cluster)
}

// jobsFromV0042 translates every job. A job whose strings cannot be parsed
// is kept with what could be read and Job.Unreadable saying why (the
// planner leaves it untouched); bad counts them. One such job must not cost
// the planning of the others, nor the collector its GPU→job mapping.
func jobsFromV0042(in []jobWireV0042) (jobs []planner.Job, bad int) {
	out := make([]planner.Job, 0, len(in))
	for i := range in {
		j := jobFromV0042(&in[i])
		if j.Unreadable != "" {
			bad++
		}
		out = append(out, j)
	}
	return out, bad
}

// runTimes are a job's start (running, suspended, or ended after a start)
// and end (ended); zero otherwise.
func runTimes(st planner.JobState, in *jobWireV0042) (start, end time.Time) {
	switch {
	case st == planner.JobRunning || st == planner.JobSuspended:
		return unixSeconds(in.StartTime), time.Time{}
	case Ended(string(st)):
		return unixSeconds(in.StartTime), unixSeconds(in.EndTime)
	}
	return time.Time{}, time.Time{}
}

// jobFromV0042 translates one job; what cannot be parsed is named in
// Job.Unreadable and the rest is kept.
func jobFromV0042(in *jobWireV0042) planner.Job {
	j := planner.Job{
		ID:           in.JobID,
		Name:         in.Name,
		User:         in.UserName,
		Account:      in.Account,
		QOS:          in.QOS,
		Partition:    in.Partition,
		Reason:       in.StateReason,
		SubmitTime:   unixSeconds(in.SubmitTime),
		Comment:      in.Comment,
		AdminComment: in.AdminComment,
		BurstBuffer:  in.BurstBuffer,
	}
	j.BurstBufferState = in.BBState
	if len(in.JobState) > 0 {
		j.State = planner.JobState(in.JobState[0])
	}
	j.StartTime, j.EndTime = runTimes(j.State, in)
	w, strata := decide.ParseAdminComment(j.AdminComment)
	j.NonCooperative = strata && w.NonCooperative
	j.Partitions = allowedPartitions(j.Partition, w.Parts)
	if strata && j.State == planner.JobRunning && !w.Signalled.IsZero() && !j.StartTime.After(w.Signalled) {
		j.Signalled = w.Signalled // this run was signalled: it is checkpointing and will requeue itself
	}
	j.Requeue, j.Restarts = in.Requeue, in.RestartCnt
	if b := unixSeconds(in.EligibleTime); j.State == planner.JobPending && b.After(j.SubmitTime) {
		// sbatch --begin, a requeue delay, or a begin time Strata wrote: the
		// admin comment's defer= tells Strata's own apart. A requeued job's
		// begin time (Slurm's requeue delay, cred_expire + 1 s) is Slurm's
		// and is never lifted: slurmd refuses a restart on the same node
		// while the revoked credential lives ("Job credential revoked").
		if strata && w.Defer.Equal(b) {
			j.DeferredUntil = b
		} else {
			j.BeginTime = b
		}
	}
	if m, ok := in.TimeLimit.value(); ok {
		j.TimeLimit = time.Duration(m) * time.Minute
	}
	j.Priority, _ = in.Priority.value()
	j.Nice = in.Nice
	if j.State == planner.JobPending {
		j.SitePriority = sitePriority(j.Priority, in.Nice, w, strata)
	}
	n, _ := in.NodeCount.value()
	j.Nodes = max(1, int(n))
	cpus, _ := in.Cpus.value()
	j.CPUs = int(cpus)
	j.MemoryMB = memoryV0042(in, j.Nodes, j.CPUs)
	j.ArrayJobID, _ = in.ArrayJobID.value()
	j.HetJobID, _ = in.HetJobID.value()
	var errs []string
	for _, err := range []error{fillGPUs(&j, in.TresPerNode, in.TresPerJob, in.TresPerTask), fillBurstBuffer(&j),
		fillAllocation(&j, in.Nodes, in.GresDetail)} {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if t, ok := in.Tasks.value(); ok && (j.GPUsPerTask > 0 || t > 1) {
		j.Tasks = int(t) // a per-task GPU request, or CPUs to scale per task
	}
	if t, ok := in.TasksPerNode.value(); ok && t > 0 {
		j.TasksPerNode = int(t)
	}
	j.TRESPerNode, j.TRESPerJob = in.TresPerNode, in.TresPerJob
	if c, ok := in.CpusPerTask.value(); ok && c > 0 {
		j.CPUsPerTask = int(c)
	}
	if m, ok := in.MemoryPerNode.value(); ok && m > 0 {
		j.MemoryPerNodeMB = m
	}
	j.CPUsPerGPU = strings.Contains(in.CpusPerTres, "gres/gpu")
	j.MemoryPerGPU = strings.Contains(in.MemoryPerTres, "gres/gpu")
	if len(errs) > 0 {
		j.Unreadable = fmt.Sprintf("job %d: %s", j.ID, strings.Join(errs, "; "))
	}
	return j
}

func unixSeconds(v noValV0042) time.Time {
	if s, ok := v.value(); ok && s > 0 {
		return time.Unix(s, 0).UTC()
	}
	return time.Time{}
}

func memoryV0042(in *jobWireV0042, nodes, cpus int) int64 {
	if m, ok := in.MemoryPerNode.value(); ok && m > 0 {
		return m * int64(nodes)
	}
	if m, ok := in.MemoryPerCpu.value(); ok && m > 0 {
		return m * int64(max(1, cpus))
	}
	return 0
}

// fillGPUs sets the GPU request from tres_per_node / tres_per_job /
// tres_per_task.
func fillGPUs(j *planner.Job, perNode, perJob, perTask string) error {
	var gs [3]gpuGRES
	for k, s := range []string{perNode, perJob, perTask} {
		g, err := parseTRESGPU(s)
		if err != nil {
			return err
		}
		gs[k] = g
	}
	j.GPUsPerNode, j.GPUsPerJob, j.GPUsPerTask = gs[0].Count, gs[1].Count, gs[2].Count
	for _, g := range gs {
		if j.GPUType == "" {
			j.GPUType = g.Type
		}
	}
	return nil
}

func fillBurstBuffer(j *planner.Job) error {
	if j.BurstBuffer == "" {
		return nil
	}
	r, err := burstbuffer.ParseDirective(j.BurstBuffer)
	if err != nil {
		return err
	}
	j.BurstBufferPool, j.BurstBufferBytes = r.Pool, r.Bytes
	return nil
}

// fillAllocation sets NodeList and, for running jobs, the GPU indices held
// per node: gres_detail[i] belongs to the i-th node of the job's node list.
func fillAllocation(j *planner.Job, nodes string, detail []string) error {
	if j.State != planner.JobRunning && j.State != planner.JobSuspended {
		return nil
	}
	names, err := expandHostlist(nodes)
	if err != nil {
		return err
	}
	j.NodeList = names
	for i, d := range detail {
		if i >= len(names) {
			break
		}
		g, err := parseGRES(d)
		if err != nil {
			return err
		}
		if len(g.Indices) > 0 {
			j.GPUAlloc = append(j.GPUAlloc, planner.GPUAllocation{Node: names[i], Indices: g.Indices})
		}
	}
	return nil
}

// allowedPartitions is the partitions a job may run in when more than one:
// Slurm's comma-separated list, or the list Strata recorded (parts=) when
// it wrote one of them as the job's partition — as long as the job is
// still in one of them (a partition the user set since wins).
func allowedPartitions(cur string, recorded []string) []string {
	if strings.Contains(cur, ",") {
		return strings.Split(cur, ",")
	}
	if len(recorded) > 1 && slices.Contains(recorded, cur) {
		return recorded
	}
	return nil
}
