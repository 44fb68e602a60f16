package planner_test

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// A hint whose modelled time does not fit in a time.Duration saturates at
// MaxModelledDuration: it never wraps around to a negative (or tiny) time
// that would rank the job first.
func TestDurationSaturates(t *testing.T) {
	for _, comment := range []string{
		"strata: params=1 flops=1P batch=1 iters=100M gpus=8",
		"strata: params=1 flops=1P batch=1 iters=1000000000000 gpus=1-8",
		"strata: model=resnet50 batch=64 epochs=1000000 samples=1000000000000 gpus=1-8",
	} {
		j := &planner.Job{ID: 1, GPUsPerNode: 8, Nodes: 1, Comment: comment}
		for _, w := range []int{1, 8} {
			d, _, err := planner.EstimateDuration(j, w, 0, planner.Options{})
			if err != nil {
				t.Fatalf("%q: %v", comment, err)
			}
			if d <= 0 || d > planner.MaxModelledDuration {
				t.Errorf("%q on %d GPUs: %v, want in (0, %v]", comment, w, d, planner.MaxModelledDuration)
			}
		}
	}
}

// The same hint cannot move a job to the front of the queue.
func TestHugeHintDoesNotJumpTheQueue(t *testing.T) {
	s := pt.Cluster("huge", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
		Running(1, 8, "n0001", t0.Add(-time.Minute)).
		Pending(2, 8, "strata: model=resnet50 batch=64 epochs=1 samples=1281167", pt.Submitted(t0.Add(-time.Hour))).
		Pending(3, 8, "strata: params=1 flops=1P batch=1 iters=100M gpus=8").Build()
	for _, policy := range []string{"smd", "sjf", "qssf"} {
		ds := plan(t, policy, planner.Options{}, s)
		if ds[3].Rank < ds[2].Rank {
			t.Errorf("%s: the 100M-iteration job ranks %d, ahead of a one-epoch job (%d)", policy, ds[3].Rank, ds[2].Rank)
		}
		if ds[3].PredictedEnd.Before(ds[3].PredictedStart) {
			t.Errorf("%s: predicted end %v before start %v", policy, ds[3].PredictedEnd, ds[3].PredictedStart)
		}
	}
}
