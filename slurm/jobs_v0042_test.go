package slurm

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/planner"
)

// One job the adapter cannot read fully (an unparsable burst-buffer
// directive, a bad GRES string) must not cost the whole snapshot: it is kept,
// marked Unreadable with the reason, and the other jobs are read as usual.
func TestUnreadableJobKeptAndMarked(t *testing.T) {
	set := noValV0042{Set: true, Number: 1}
	in := []jobWireV0042{
		{JobID: 1, JobState: []string{"PENDING"}, TresPerNode: "gres/gpu:2", NodeCount: set, SubmitTime: set},
		{JobID: 2, JobState: []string{"PENDING"}, TresPerNode: "gres/gpu:2", NodeCount: set, SubmitTime: set,
			BurstBuffer: "#BB_LUA pool=nvme capacity=lots"},
		{JobID: 3, JobState: []string{"RUNNING"}, TresPerNode: "gres/gpu:a100:x", NodeCount: set, SubmitTime: set,
			StartTime: set, Nodes: "node1"},
		{JobID: 4, JobState: []string{"RUNNING"}, TresPerNode: "gres/gpu:1", NodeCount: set, SubmitTime: set,
			StartTime: set, Nodes: "node[1-"},
	}
	jobs, bad := jobsFromV0042(in)
	if len(jobs) != 4 || bad != 3 {
		t.Fatalf("read %d jobs, %d unreadable; want 4 and 3", len(jobs), bad)
	}
	if jobs[0].Unreadable != "" || jobs[0].GPUs() != 2 {
		t.Errorf("job 1: %+v", jobs[0])
	}
	for _, j := range jobs[1:] {
		if j.Unreadable == "" || !strings.Contains(j.Unreadable, "job") {
			t.Errorf("job %d: Unreadable %q, want the reason", j.ID, j.Unreadable)
		}
	}
	if jobs[1].GPUs() != 2 || jobs[1].State != planner.JobPending {
		t.Errorf("job 2 keeps what could be read: %+v", jobs[1])
	}
}
