package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// TestPlanBoundLimit (issue 22.2): a lower time limit is a write of its
// own (counted against the per-cycle limit), never raises a limit, never
// goes under planner.MinBoundLimit and never reaches a job that is not
// pending.
func TestPlanBoundLimit(t *testing.T) {
	cur := "strata: workers=1 ps=0 rank=1 cycle=7"
	job := func(id int64, st planner.JobState, limit time.Duration) *planner.Job {
		return &planner.Job{ID: id, State: st, GPUsPerNode: 1, Nodes: 1, Priority: 500, TimeLimit: limit,
			Comment: "strata: model=resnet50 batch=1 iters=1", AdminComment: cur}
	}
	bound := func(id int64, lim time.Duration) planner.Decision {
		return planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 500, TimeLimit: lim}
	}
	o := Options{MaxPerCycle: 1, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1}
	type got struct {
		Write   bool
		Outcome Outcome
		Guard   Name
		Limit   time.Duration
	}
	for _, tt := range []struct {
		name string
		d    []planner.Decision
		jobs []*planner.Job
		want []got
	}{
		{"lowered: written", []planner.Decision{bound(1, 30*time.Minute)}, []*planner.Job{job(1, planner.JobPending, 48*time.Hour)},
			[]got{{Write: true, Limit: 30 * time.Minute}}},
		{"never raised", []planner.Decision{bound(1, 3*time.Hour)}, []*planner.Job{job(1, planner.JobPending, time.Hour)},
			[]got{{Outcome: Unchanged}}},
		{"never under the least bound limit", []planner.Decision{bound(1, 5*time.Minute)}, []*planner.Job{job(1, planner.JobPending, 48*time.Hour)},
			[]got{{Outcome: Unchanged}}},
		{"a job without a limit keeps none", []planner.Decision{bound(1, 30*time.Minute)}, []*planner.Job{job(1, planner.JobPending, 0)},
			[]got{{Outcome: Unchanged}}},
		{"only pending jobs", []planner.Decision{bound(1, 30*time.Minute)}, []*planner.Job{job(1, planner.JobRunning, 48*time.Hour)},
			[]got{{Outcome: Held, Guard: NotPending, Limit: 30 * time.Minute}}},
		{"counted as a write", []planner.Decision{bound(1, 30*time.Minute), bound(2, 30*time.Minute)},
			[]*planner.Job{job(1, planner.JobPending, 48*time.Hour), job(2, planner.JobPending, 48*time.Hour)},
			[]got{{Write: true, Limit: 30 * time.Minute}, {Outcome: Held, Guard: CycleLimit, Limit: 30 * time.Minute}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			jobs := map[int64]*planner.Job{}
			for _, j := range tt.jobs {
				jobs[j.ID] = j
			}
			var out []got
			for _, v := range Plan(planner.Plan{Decisions: tt.d}, jobs, nil, nil, now, o) {
				out = append(out, got{v.Write, v.Outcome, v.Guard, v.Send.TimeLimit})
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdminCommentLimit: the limit the user asked for survives the round
// trip of the admin comment.
func TestAdminCommentLimit(t *testing.T) {
	w := Written{Workers: 1, Rank: 2, Cycle: 9, Limit: 48 * time.Hour, Parts: []string{"a", "b"}}
	s := w.String()
	if s != "strata: workers=1 ps=0 rank=2 cycle=9 limit=2-00:00:00 parts=a,b" {
		t.Errorf("segment %q", s)
	}
	back, ok := ParseAdminComment(s)
	if !ok || !cmp.Equal(back, w) {
		t.Errorf("parsed %+v (%v), want %+v", back, ok, w)
	}
}
