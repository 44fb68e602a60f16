package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBackfillOrderCarriedOver: the running jobs by time limit that a
// backfill cycle carries over from the previous one (byLimit) are the
// running jobs sorted by time limit, cycle after cycle, as jobs start and
// end, and as a job restarts with a new limit.
func TestBackfillOrderCarriedOver(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	e := &engine{jobs: make([]job, 60)}
	p := &bfPlan{}
	for cycle := range 200 {
		e.running = e.running[:0]
		for i := range e.jobs {
			if rng.IntN(3) > 0 {
				e.running = append(e.running, i)
			}
			if rng.IntN(10) == 0 { // (re)started with a new limit
				e.jobs[i].killAt = float64(rng.IntN(50)) * 60
			}
		}
		var want []bfJob
		for _, i := range e.running {
			want = append(want, bfJob{e.jobs[i].killAt, i})
		}
		got := p.byLimit(e)
		if !slices.IsSortedFunc(got, func(a, b bfJob) int { return cmpFloat(a.kill, b.kill) }) {
			t.Fatalf("cycle %d: not by time limit: %v", cycle, got)
		}
		key := func(a, b bfJob) int { return a.i - b.i }
		got = slices.Clone(got)
		slices.SortFunc(got, key)
		slices.SortFunc(want, key)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(bfJob{})); diff != "" {
			t.Fatalf("cycle %d: running jobs (-want +got):\n%s", cycle, diff)
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
