package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// Site limits cut what any user may ask for: weight=1000 no longer buys the
// front of the queue, gpus=1-4096 no longer gets a 1-GPU job the whole
// partition, and the decision says which cap applied.
func TestSiteLimits(t *testing.T) {
	build := func(weight string) *planner.Snapshot {
		b := pt.Cluster("caps", t0).Partition("gpu", true).Nodes("n", 4, 4, 64, 512<<10, "gpu", "").
			Running(1, 4, "n0001", t0.Add(-time.Minute)).Running(2, 4, "n0002", t0.Add(-time.Minute)).
			Running(3, 4, "n0003", t0.Add(-time.Minute)).Running(4, 4, "n0004", t0.Add(-time.Minute))
		for id := int64(10); id < 15; id++ {
			b = b.Pending(id, 4, "strata: model=resnet50 batch=64 epochs=1 samples=1281167", pt.Submitted(t0.Add(-time.Duration(20-id)*time.Minute)))
		}
		return b.Pending(20, 8, "strata: model=resnet50 batch=64 epochs=1 samples=1281167"+weight,
			func(j *planner.Job) { j.Account = "greedy" }).
			Pending(21, 1, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4096").Build()
	}
	unweighted := plan(t, "smd", planner.Options{}, build(""))[20].Rank
	tests := []struct {
		name         string
		limits       []planner.Limit
		asIfNoWeight bool // the weight is capped to 1: the job ranks as without weight=
		max21        int  // most GPUs job 21 may get
		capped       []int64
	}{
		{name: "no limits", limits: nil, max21: 16},
		{name: "defaults", limits: planner.DefaultLimits(), max21: 2, capped: []int64{20, 21}},
		{name: "account limit", limits: []planner.Limit{{Account: "greedy", MaxWeight: 1}, {Partition: "gpu", MaxGPUs: 4}},
			asIfNoWeight: true, max21: 4, capped: []int64{20, 21}},
		{name: "other partition", limits: []planner.Limit{{Partition: "cpu", MaxWeight: 1, MaxGPUs: 1}}, max21: 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := plan(t, "smd", planner.Options{Limits: tt.limits}, build(" weight=1000"))
			if r := ds[20].Rank; tt.asIfNoWeight && r != unweighted {
				t.Errorf("weight=1000 capped to 1: job ranks %d, without weight= it ranks %d", r, unweighted)
			}
			if r := ds[20].Rank; !tt.asIfNoWeight && tt.limits == nil && r != 1 {
				t.Errorf("uncapped weight=1000: job ranks %d, want 1", r)
			}
			if w := ds[21].Workers; w > tt.max21 {
				t.Errorf("gpus=1-4096 job planned with %d GPUs, want ≤ %d", w, tt.max21)
			}
			for _, id := range []int64{20, 21} {
				want := false
				for _, c := range tt.capped {
					want = want || c == id
				}
				got := false
				for _, r := range ds[id].Reasons {
					got = got || r == planner.ReasonCapped
				}
				if got != want || got && !strings.Contains(ds[id].Detail, "capped") {
					t.Errorf("job %d: capped reason %v (detail %q), want %v", id, got, ds[id].Detail, want)
				}
			}
		})
	}
	if err := (planner.Options{Limits: []planner.Limit{{MaxWeight: -1}}}).Validate(); err == nil {
		t.Error("a negative cap validates")
	}
}
