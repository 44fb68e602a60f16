package slurm

import (
	"context"
	"encoding/json"
	"fmt"

	api "github.com/SlinkyProject/slurm-client/api/v0042"
)

func descV0042(u JobUpdate) api.V0042JobDescMsg {
	var d api.V0042JobDescMsg
	if u.Priority > 0 {
		set, n := true, int32(min(u.Priority, 1<<31-1))
		d.Priority = &api.V0042Uint32NoValStruct{Set: &set, Number: &n}
	}
	if u.ResetPriority { // INFINITE: slurmctld drops a directly set priority and computes its own (job_mgr.c, _update_job)
		inf := true
		d.Priority = &api.V0042Uint32NoValStruct{Infinite: &inf}
	}
	if u.Nice != nil {
		n := int32(max(min(*u.Nice, maxNice), -maxNice))
		d.Nice = &n
	}
	d.TresPerNode, d.TresPerJob, d.AdminComment, d.Partition = u.TresPerNode, u.TresPerJob, u.AdminComment, u.Partition
	if u.MinimumNodes > 0 {
		n := int32(u.MinimumNodes)
		d.MinimumNodes = &n
	}
	if u.MaximumNodes > 0 {
		n := int32(u.MaximumNodes)
		d.MaximumNodes = &n
	}
	if u.CPUsPerTask > 0 {
		c, m, n := int32(u.CPUsPerTask), int32(u.MinimumCPUs), int32(u.MinimumCPUsPerNode)
		d.CpusPerTask, d.MinimumCpus, d.MinimumCpusPerNode = &c, &m, &n
	}
	if u.Tasks > 0 {
		t, n := int32(u.Tasks), int32(u.TasksPerNode)
		d.Tasks = &t
		if n > 0 {
			d.TasksPerNode = &n
		}
	}
	if u.MemoryPerNodeMB > 0 {
		set, m := true, u.MemoryPerNodeMB
		d.MemoryPerNode = &api.V0042Uint64NoValStruct{Set: &set, Number: &m}
	}
	if u.TimeLimitMinutes > 0 {
		set, m := true, int32(min(u.TimeLimitMinutes, 1<<31-1))
		d.TimeLimit = &api.V0042Uint32NoValStruct{Set: &set, Number: &m}
	}
	if u.BeginTime > 0 {
		set, t := true, u.BeginTime
		d.BeginTime = &api.V0042Uint64NoValStruct{Set: &set, Number: &t}
	}
	return d
}

func (v *v0042) updateBody(u JobUpdate) ([]byte, error) {
	b, err := json.Marshal(descV0042(u))
	if err != nil {
		return nil, fmt.Errorf("encode job update: %w", err)
	}
	return b, nil
}

func (v *v0042) updateJob(ctx context.Context, id int64, u JobUpdate) error {
	defer v.c.jobCache.markDirty(id) // written or not, the next snapshot reads it again
	if err := readProblems(v.raw.SlurmV0042PostJob(ctx, jobIDString(id), descV0042(u))); err != nil {
		return fmt.Errorf("update job %d: %w", id, err)
	}
	return nil
}

// signalJob sends signal (e.g. "USR1") to job id's batch shell, where the
// job's trap saves a checkpoint and requeues the job.
func (v *v0042) signalJob(ctx context.Context, id int64, signal string) error {
	defer v.c.jobCache.markDirty(id)
	sig, flags := "SIG"+signal, api.SlurmV0042DeleteJobParamsFlags("BATCH_JOB")
	if err := readProblems(v.raw.SlurmV0042DeleteJob(ctx, jobIDString(id), &api.SlurmV0042DeleteJobParams{Signal: &sig, Flags: &flags})); err != nil {
		return fmt.Errorf("signal job %d: %w", id, err)
	}
	return nil
}

// setNodeState sets one node's state (e.g. POWER_DOWN, POWER_UP).
func (v *v0042) setNodeState(ctx context.Context, node, state string) error {
	st := []api.V0042UpdateNodeMsgState{api.V0042UpdateNodeMsgState(state)}
	if err := readProblems(v.raw.SlurmV0042PostNode(ctx, node, api.V0042UpdateNodeMsg{State: &st})); err != nil {
		return fmt.Errorf("update node %s: %w", node, err)
	}
	return nil
}
