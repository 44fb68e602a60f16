package slurm

import (
	"context"
	"fmt"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/planner"
)

func (v *v0042) jobs(ctx context.Context) ([]planner.Job, string, error) {
	resp, err := v.raw.SlurmV0042GetJobs(ctx, nil)
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	var body jobsRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	jobs, err := jobsFromV0042(body.Jobs)
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	return jobs, clusterV0042(body.Meta), nil
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
			j, err := jobFromV0042(&body.Jobs[i])
			if err != nil {
				return planner.Job{}, fmt.Errorf("read job %d: %w", id, err)
			}
			return j, nil
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

// jobsFromV0042 translates every job; jobs whose strings cannot be parsed
// are an error naming the job, since planning on a misread queue is worse
// than not planning.
func jobsFromV0042(in []jobWireV0042) ([]planner.Job, error) {
	out := make([]planner.Job, 0, len(in))
	for i := range in {
		j, err := jobFromV0042(&in[i])
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

func jobFromV0042(in *jobWireV0042) (planner.Job, error) {
	j := planner.Job{
		ID:           in.JobID,
		Name:         in.Name,
		User:         in.UserName,
		Account:      in.Account,
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
	if j.State == planner.JobRunning || j.State == planner.JobSuspended {
		j.StartTime = unixSeconds(in.StartTime)
	}
	if b := unixSeconds(in.EligibleTime); j.State == planner.JobPending && b.After(j.SubmitTime) {
		j.BeginTime = b // sbatch --begin, a requeue delay, or a begin time Strata wrote
	}
	if m, ok := in.TimeLimit.value(); ok {
		j.TimeLimit = time.Duration(m) * time.Minute
	}
	j.Priority, _ = in.Priority.value()
	n, _ := in.NodeCount.value()
	j.Nodes = max(1, int(n))
	cpus, _ := in.Cpus.value()
	j.CPUs = int(cpus)
	j.MemoryMB = memoryV0042(in, j.Nodes, j.CPUs)
	if err := fillGPUs(&j, in.TresPerNode, in.TresPerJob); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	if err := fillBurstBuffer(&j); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	if err := fillAllocation(&j, in.Nodes, in.GresDetail); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	return j, nil
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

// fillGPUs sets the GPU request from tres_per_node / tres_per_job.
func fillGPUs(j *planner.Job, perNode, perJob string) error {
	pn, err := parseTRESGPU(perNode)
	if err != nil {
		return err
	}
	pj, err := parseTRESGPU(perJob)
	if err != nil {
		return err
	}
	j.GPUsPerNode, j.GPUsPerJob = pn.Count, pj.Count
	j.GPUType = pn.Type
	if j.GPUType == "" {
		j.GPUType = pj.Type
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
