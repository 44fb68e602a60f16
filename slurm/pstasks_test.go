package slurm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// A PS decision's servers are written as tasks of the job (issue 24.1):
// every part of the layout at once, a per-job --gpus total turned into
// GPUs per node, nothing when Slurm's record already holds the layout.
func TestPSJobIsWrittenAsTasks(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	perNode := planner.Job{ID: 1, State: planner.JobPending, SubmitTime: now.Add(-time.Hour), Priority: 10,
		GPUsPerNode: 1, Nodes: 1, TRESPerNode: "gres/gpu:1", CPUs: 2, CPUsPerTask: 2, MemoryMB: 8192, MemoryPerNodeMB: 8192}
	perJob := perNode
	perJob.GPUsPerNode, perJob.GPUsPerJob, perJob.TRESPerNode, perJob.TRESPerJob = 0, 1, "", "gres/gpu:1,gres/nvme:1"
	d := planner.Decision{JobID: 1, Action: planner.ActionUpdate, Workers: 8, PS: 2, GPUsPerNode: 4, NodeCount: 2,
		Tasks: 10, TasksPerNode: 5, CPUsPerTask: 2, MemoryPerNodeMB: 34000, Priority: 10}
	written := perNode
	written.GPUsPerNode, written.Nodes, written.TRESPerNode = 4, 2, "gres/gpu:4"
	written.Tasks, written.TasksPerNode, written.MemoryPerNodeMB, written.CPUs = 10, 5, 34000, 20
	tests := []struct {
		name string
		job  planner.Job
		want JobUpdate
	}{
		{"per-node GPUs", perNode, JobUpdate{TresPerNode: s("gres/gpu:4"), MinimumNodes: 2, MaximumNodes: 2,
			Tasks: 10, TasksPerNode: 5, CPUsPerTask: 2, MinimumCPUs: 20, MinimumCPUsPerNode: 10, MemoryPerNodeMB: 34000}},
		{"per-job GPUs become per node", perJob, JobUpdate{TresPerNode: s("gres/gpu:4"), TresPerJob: s("gres/nvme:1"),
			MinimumNodes: 2, MaximumNodes: 2, Tasks: 10, TasksPerNode: 5, CPUsPerTask: 2, MinimumCPUs: 20,
			MinimumCPUsPerNode: 10, MemoryPerNodeMB: 34000}},
		{"already written: nothing", written, JobUpdate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := jobUpdateFor(tt.job, d, 0, now)
			u.AdminComment = nil
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
		})
	}
}
