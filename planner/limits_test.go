package planner_test

import (
	"context"
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
			func(j *planner.Job) { j.Account, j.QOS = "greedy", "high" }).
			Pending(21, 1, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4096").Build()
	}
	tests := []struct {
		name         string
		limits       []planner.Limit
		asIfNoWeight bool // the weight is capped to 1: the job ranks as without weight=
		first        bool // the weight holds: the job ranks 1st
		max21        int  // most GPUs job 21 may get
		capped       []int64
	}{
		{name: "no limits", limits: nil, first: true, max21: 16},
		{name: "defaults: no weight granted", limits: planner.DefaultLimits(), asIfNoWeight: true, max21: 2, capped: []int64{20, 21}},
		{name: "account limit", limits: []planner.Limit{{Account: "greedy", MaxWeight: 1}, {Partition: "gpu", MaxGPUs: 4}},
			asIfNoWeight: true, max21: 4, capped: []int64{20, 21}},
		{name: "a grant elsewhere grants nothing here", limits: []planner.Limit{{Partition: "cpu", MaxWeight: 1000, MaxGPUs: 1}},
			asIfNoWeight: true, max21: 16, capped: []int64{20}},
		{name: "account grant", limits: []planner.Limit{{Account: "greedy", MaxWeight: 1000}}, first: true, max21: 16},
		{name: "QOS grant", limits: []planner.Limit{{QOS: "high", MaxWeight: 1000}}, first: true, max21: 16},
		{name: "a grant of another QOS grants nothing here", limits: []planner.Limit{{QOS: "normal", MaxWeight: 1000}},
			asIfNoWeight: true, max21: 16, capped: []int64{20}},
		{name: "the largest grant among matching limits", limits: []planner.Limit{{MaxWeight: 2}, {Account: "greedy", MaxWeight: 1000}, {Partition: "gpu", MaxWeight: 3}},
			first: true, max21: 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unweighted := plan(t, "smd", planner.Options{Limits: tt.limits}, build(""))[20].Rank
			ds := plan(t, "smd", planner.Options{Limits: tt.limits}, build(" weight=1000"))
			if r := ds[20].Rank; tt.asIfNoWeight && r != unweighted {
				t.Errorf("weight=1000 capped to 1: job ranks %d, without weight= it ranks %d", r, unweighted)
			}
			if r := ds[20].Rank; tt.first && r != 1 {
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

// TestRangeMinimumCapped: the cap reaches the minimum of a gpus= range: a
// 1-GPU job with gpus=16 under MaxGPUs 4 and MaxRangeFactor 1 is planned at
// 1 GPU, and the decision says so (it said "capped to 16" and planned 16).
func TestRangeMinimumCapped(t *testing.T) {
	s := pt.Cluster("capmin", t0).Partition("gpu", true).Nodes("n", 4, 8, 64, 512<<10, "gpu", "").
		Pending(1, 1, "strata: model=resnet50 batch=64 iters=1000 gpus=16").Build()
	for _, tt := range []struct {
		name   string
		limits []planner.Limit
		want   int
		detail string
	}{
		{"range factor 1", []planner.Limit{{MaxGPUs: 4, MaxRangeFactor: 1}}, 1, "gpus=16 capped to 1 (site limit)"},
		{"max GPUs 4", []planner.Limit{{MaxGPUs: 4}}, 4, "gpus=16 capped to 4 (site limit)"},
		{"partition limit", []planner.Limit{{Partition: "gpu", MaxGPUs: 4}}, 4, "capped to 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := plan(t, "smd", planner.Options{Limits: tt.limits}, s)[1]
			if got := d.GPUsPerNode * max(1, d.NodeCount); got != tt.want || d.Workers != tt.want {
				t.Errorf("planned %d workers, %d×%d GPUs, want %d", d.Workers, d.GPUsPerNode, d.NodeCount, tt.want)
			}
			if !strings.Contains(d.Detail, tt.detail) {
				t.Errorf("detail %q, want it to say %q", d.Detail, tt.detail)
			}
		})
	}
}

// TestDeadlinePastIgnored: a deadline in the past buys no place under edf
// (it ranked first) and the decision says it was ignored.
func TestDeadlinePastIgnored(t *testing.T) {
	b := pt.Cluster("dl", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Running(1, 4, "n0001", t0.Add(-time.Minute))
	for id := int64(10); id < 13; id++ {
		b = b.Pending(id, 4, "strata: model=resnet50 batch=64 iters=1000 deadline=2030-01-01T00:00", pt.Submitted(t0.Add(-time.Duration(20-id)*time.Minute)))
	}
	s := b.Pending(20, 4, "strata: model=resnet50 batch=64 iters=1000 deadline=2000-01-01T00:00").Build()
	ds := plan(t, "edf", planner.Options{}, s)
	if r := ds[20].Rank; r == 1 {
		t.Errorf("job with a past deadline ranks %d under edf, want behind the jobs with a future deadline", r)
	}
	found := false
	for _, r := range ds[20].Reasons {
		found = found || r == planner.ReasonDeadlinePast
	}
	if !found || !strings.Contains(ds[20].Detail, "2000-01-01T00:00 was past at submission") {
		t.Errorf("reasons %v detail %q: want %s", ds[20].Reasons, ds[20].Detail, planner.ReasonDeadlinePast)
	}
}

// TestDeadlinePassedWhileWaitingCounts: a deadline that was in the future
// at submission and passed while the job waited still makes it urgent
// under edf (it is late), unlike one already past at submission.
func TestDeadlinePassedWhileWaitingCounts(t *testing.T) {
	b := pt.Cluster("dl", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Running(1, 4, "n0001", t0.Add(-time.Minute))
	for id := int64(10); id < 13; id++ {
		b = b.Pending(id, 4, "strata: model=resnet50 batch=64 iters=1000 deadline=2030-01-01T00:00", pt.Submitted(t0.Add(-time.Duration(20-id)*time.Minute)))
	}
	late := t0.Add(-30 * time.Minute).UTC().Format("2006-01-02T15:04")
	s := b.Pending(20, 4, "strata: model=resnet50 batch=64 iters=1000 deadline="+late, pt.Submitted(t0.Add(-2*time.Hour))).Build()
	ds := plan(t, "edf", planner.Options{}, s)
	if r := ds[20].Rank; r != 1 {
		t.Errorf("late job (deadline passed while it waited) ranks %d under edf, want 1", r)
	}
	for _, r := range ds[20].Reasons {
		if r == planner.ReasonDeadlinePast {
			t.Errorf("late job's deadline ignored: reasons %v", ds[20].Reasons)
		}
	}
}

// A job whose QOS changes between cycles (scontrol update qos=) is capped
// by the limits of its new QOS: the policy's memo keys the limits on it,
// so a carried-over policy plans it as a fresh one does.
func TestQOSLimitFollowsAQOSChange(t *testing.T) {
	build := func(qos string) *planner.Snapshot {
		b := pt.Cluster("qos", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
			Running(1, 4, "n0001", t0.Add(-time.Minute))
		for id := int64(10); id < 14; id++ {
			b = b.Pending(id, 4, "strata: model=resnet50 batch=64 epochs=1 samples=1281167", pt.Submitted(t0.Add(-time.Duration(20-id)*time.Minute)))
		}
		return b.Pending(20, 4, "strata: model=resnet50 batch=64 epochs=2 samples=1281167 weight=1000",
			func(j *planner.Job) { j.QOS = qos }).Build()
	}
	o := planner.Options{Limits: []planner.Limit{{QOS: "high", MaxWeight: 1000}}}
	kept, err := planner.NewPolicy("smd", o)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, qos := range []string{"normal", "high", "normal"} {
		p, err := kept.Plan(context.Background(), build(qos))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Decisions {
			if d.JobID == 20 {
				got = append(got, d.Rank)
			}
		}
	}
	if got[1] != 1 || got[0] == 1 || got[2] != got[0] {
		t.Errorf("ranks in QOS normal, high, normal: %v; want 1 only in high (its grant)", got)
	}
}
