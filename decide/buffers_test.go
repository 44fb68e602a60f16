package decide_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// TestDecideInEqualsDecide: deciding with Buffers lent from call to call
// gives Decide's result at each call, as a caller that reuses its
// snapshot's job buffer sees it: the same jobs again (the index is kept),
// a job gone and one new in the same buffer (it is built again), the same
// jobs in a buffer of their own.
func TestDecideInEqualsDecide(t *testing.T) {
	base := pt.Synthetic(4, 8, 12, 3)
	buf := make([]planner.Job, 0, len(base.Jobs)+4)
	into := func(jobs []planner.Job) *planner.Snapshot { // the caller's reused buffer
		s := *base
		s.Jobs = append(buf[:0], jobs...)
		return &s
	}
	gone := slices.Delete(slices.Clone(base.Jobs), 3, 4)
	arrived := append(slices.Clone(gone), planner.Job{ID: 999, State: planner.JobPending, Priority: 1, GPUsPerJob: 2,
		Nodes: 1, CPUs: 4, MemoryMB: 16384, TimeLimit: time.Hour, Comment: "strata: gpus=1-4", SubmitTime: base.Now})
	own := *base
	own.Jobs = slices.Clone(arrived)
	steps := []*planner.Snapshot{into(base.Jobs), into(base.Jobs), into(gone), into(arrived), into(arrived), &own}
	pol, err := planner.NewPolicy("smd", planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := decide.Defaults()
	var b decide.Buffers
	for k, s := range steps {
		ref := *s
		ref.Jobs = slices.Clone(s.Jobs)
		want, err := decide.Decide(context.Background(), pol, &ref, decide.History{}, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decide.DecideIn(context.Background(), pol, s, decide.History{}, o, &b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Verdicts, got.Verdicts); diff != "" {
			t.Errorf("step %d: verdicts (-Decide +DecideIn):\n%s", k, diff)
		}
		if diff := cmp.Diff(want.Plan, got.Plan); diff != "" {
			t.Errorf("step %d: plan (-Decide +DecideIn):\n%s", k, diff)
		}
		if len(got.Jobs) != len(want.Jobs) {
			t.Errorf("step %d: %d jobs indexed, want %d", k, len(got.Jobs), len(want.Jobs))
		}
		for i := range s.Jobs {
			if j := &s.Jobs[i]; got.Jobs[j.ID] != j {
				t.Errorf("step %d: job %d indexed at %p, want its place in the snapshot %p", k, j.ID, got.Jobs[j.ID], j)
			}
		}
	}
}
