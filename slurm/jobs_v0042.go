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
	var body api.V0042OpenapiJobInfoResp
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
	var body api.V0042OpenapiJobInfoResp
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return planner.Job{}, fmt.Errorf("read job %d: %w", id, err)
	}
	for i := range body.Jobs {
		if int64(deref(body.Jobs[i].JobId)) == id {
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
func jobsFromV0042(in api.V0042JobInfoMsg) ([]planner.Job, error) {
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

func jobFromV0042(in *api.V0042JobInfo) (planner.Job, error) {
	j := planner.Job{
		ID:           int64(deref(in.JobId)),
		Name:         deref(in.Name),
		User:         deref(in.UserName),
		Account:      deref(in.Account),
		Partition:    deref(in.Partition),
		Reason:       deref(in.StateReason),
		SubmitTime:   unixTime(in.SubmitTime),
		Comment:      deref(in.Comment),
		AdminComment: deref(in.AdminComment),
		BurstBuffer:  deref(in.BurstBuffer),
	}
	if in.JobState != nil && len(*in.JobState) > 0 {
		j.State = planner.JobState((*in.JobState)[0])
	}
	if j.State == planner.JobRunning || j.State == planner.JobSuspended {
		j.StartTime = unixTime(in.StartTime)
	}
	if m, ok := u32(in.TimeLimit); ok {
		j.TimeLimit = time.Duration(m) * time.Minute
	}
	j.Priority, _ = u32(in.Priority)
	n, _ := u32(in.NodeCount)
	j.Nodes = max(1, int(n))
	cpus, _ := u32(in.Cpus)
	j.CPUs = int(cpus)
	j.MemoryMB = memoryV0042(in, j.Nodes, j.CPUs)
	if err := fillGPUs(&j, deref(in.TresPerNode), deref(in.TresPerJob)); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	if err := fillBurstBuffer(&j); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	if err := fillAllocation(&j, deref(in.Nodes), deref(in.GresDetail)); err != nil {
		return planner.Job{}, fmt.Errorf("job %d: %w", j.ID, err)
	}
	return j, nil
}

func memoryV0042(in *api.V0042JobInfo, nodes, cpus int) int64 {
	if m, ok := u64(in.MemoryPerNode); ok && m > 0 {
		return m * int64(nodes)
	}
	if m, ok := u64(in.MemoryPerCpu); ok && m > 0 {
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
