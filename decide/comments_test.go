package decide_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// TestCommentsKeptAcrossCycles: the guards give the same verdicts whether
// they parse every job's admin comment each cycle or keep the parse from
// one cycle to the next (History.Comments), as comments are written,
// changed, reach the write cap, turn into the absolute mode's, and as jobs
// leave the queue and come back.
func TestCommentsKeptAcrossCycles(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	o := decide.Defaults()
	o.MaxWritesPerJob = 4
	comments := []string{"", "strata: workers=2 ps=0 rank=1 cycle=1 n=1 nice=-10", "strata: workers=1 ps=0 rank=3 cycle=2 n=2",
		"jobstats=1; strata: workers=2 ps=0 rank=2 cycle=3 n=4 nice=5", "strata: bad=", "strata: workers=1 ps=0 rank=1 cycle=5 n=3 nice=0"}
	var kept decide.Comments
	for cycle := range 40 {
		jobs := map[int64]*planner.Job{}
		var p planner.Plan
		for id := int64(1); id <= 30; id++ {
			if (id+int64(cycle))%7 == 0 {
				continue // not in this cycle's queue
			}
			nice := int64(cycle%3) * 50
			jobs[id] = &planner.Job{ID: id, State: planner.JobPending, Priority: 100, GPUsPerNode: 2, Nodes: 1, Nice: nice,
				AdminComment: comments[(int(id)*cycle/5)%len(comments)]}
			want := -int64(id) * 40
			p.Decisions = append(p.Decisions, planner.Decision{JobID: id, Action: planner.ActionUpdate, Rank: int(id),
				Workers: 1 + int(id)%2, GPUsPerNode: 1 + int(id)%2, NodeCount: 1, Nice: &want})
		}
		h := decide.History{Writes: map[int64]int{3: 2}}
		want := decide.PlanWith(p, jobs, h, now, o)
		h.Comments = &kept
		got := decide.PlanWith(p, jobs, h, now, o)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("cycle %d: verdicts with the comments kept differ (-parsed +kept):\n%s", cycle, diff)
		}
	}
}
