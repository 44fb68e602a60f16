package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// A PS decision's task layout (its servers as tasks, issue 24.1) counts as
// a resize: written at the same GPU count when the job's tasks differ,
// held by the per-job cap (the job then keeps its tasks, and the admin
// comment names the servers it has), left out when Slurm already has it.
func TestPSTasksAreAResize(t *testing.T) {
	o := Options{MaxPerCycle: 10, MaxPerJob: 2, PriorityHysteresis: 100, MinGPUChange: 2}
	d := planner.Decision{JobID: 1, Action: planner.ActionUpdate, Workers: 4, PS: 4, GPUsPerNode: 4, NodeCount: 1,
		Tasks: 8, TasksPerNode: 8, CPUsPerTask: 2}
	job := func(tasks, tpn int, admin string) *planner.Job {
		return &planner.Job{ID: 1, State: planner.JobPending, GPUsPerNode: 4, Nodes: 1, Priority: 1000, Tasks: tasks,
			TasksPerNode: tpn, Comment: "strata: model=vgg16 batch=64 iters=10 gpus=1-4 arch=ps ps=auto", AdminComment: admin}
	}
	type got struct {
		Write                                 bool
		Outcome                               Outcome
		Guard                                 Name
		Resizes                               bool
		Workers, PS, GPN, Tasks, TasksPerNode int
	}
	tests := []struct {
		name    string
		job     *planner.Job
		resizes int
		want    got
	}{
		{"same GPUs, one task: the servers are written", job(0, 0, ""), 0,
			got{Write: true, Resizes: true, Workers: 4, PS: 4, GPN: 4, Tasks: 8, TasksPerNode: 8}},
		{"already W+P tasks: nothing to write", job(8, 8, "strata: workers=4 ps=4 rank=1 cycle=3"), 0,
			got{Outcome: Unchanged, Workers: 4, PS: 4}},
		{"the per-job cap holds it: the servers the job has", job(0, 0, ""), 2,
			got{Write: true, Guard: JobCap, Workers: 4, PS: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Plan(planner.Plan{Decisions: []planner.Decision{d}}, map[int64]*planner.Job{1: tt.job},
				map[int64]int{1: tt.resizes}, nil, now, o)[0]
			s := v.Send
			g := got{v.Write, v.Outcome, v.Guard, v.Resizes(), s.Workers, s.PS, s.GPUsPerNode, s.Tasks, s.TasksPerNode}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}
