package planner_test

import (
	"slices"
	"testing"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// TestDistrustHasItsOwnWords (issue 33.5): a distrusted user's job keeps
// its size and is told why in words of its own; before, it was told
// size_locked, which names --max-rewrites-per-job.
func TestDistrustHasItsOwnWords(t *testing.T) {
	distrust := func(j *planner.Job) { j.Claim = planner.Claim{Distrust: true, Note: "x"}; j.SizeLocked = true }
	locked := func(j *planner.Job) { j.SizeLocked = true }
	h := "strata: model=resnet50 batch=64 iters=2000 gpus=1-4"
	s := pt.Cluster("words", t0).Partition("gpu", true).Nodes("n", 2, 4, 64, 512<<10, "gpu", "").
		Pending(1, 2, h, distrust).Pending(2, 2, h, locked).Build()
	got := plan(t, "smd", planner.Options{}, s)
	if r := got[1].Reasons; !slices.Contains(r, planner.ReasonSizeKeptDistrusted) || slices.Contains(r, planner.ReasonSizeLocked) {
		t.Errorf("distrusted job's reasons %v: want %s, not %s", r, planner.ReasonSizeKeptDistrusted, planner.ReasonSizeLocked)
	}
	if r := got[2].Reasons; !slices.Contains(r, planner.ReasonSizeLocked) {
		t.Errorf("locked job's reasons %v: want %s", r, planner.ReasonSizeLocked)
	}
}
