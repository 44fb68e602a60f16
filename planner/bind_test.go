package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// TestClaimBinding: with BindClaims, a pending job timed by its hint far
// below its time limit, whose user's own record shows understatement,
// gets its limit lowered to the margin over the prediction at the slowest
// size it may start at (never under the floor); a user without such a
// record (issue 30: the model's error must not end honest work), a
// preemptible job that Slurm may requeue, a distrusted one, one timed
// without its hint and a job whose limit is already close keep theirs;
// preempt=yes without requeue exempts nothing; without BindClaims nothing
// is lowered.
func TestClaimBinding(t *testing.T) {
	limit := func(d time.Duration) func(*planner.Job) { return func(j *planner.Job) { j.TimeLimit = d } }
	understates := func(j *planner.Job) { j.Claim = planner.Claim{Factor: 2, Note: "x"} }
	requeue := func(j *planner.Job) { j.Requeue = true }
	liar := "strata: model=resnet50 batch=1 iters=1"                    // ~ms
	long := "strata: model=resnet50 batch=64 epochs=10 samples=1281167" // hours on 4 GPUs
	s := pt.Cluster("bind", t0).Partition("gpu", true).Nodes("n", 2, 4, 64, 512<<10, "gpu", "").
		Pending(1, 1, liar, limit(48*time.Hour), understates).
		Pending(2, 1, liar+" preempt=yes", limit(48*time.Hour), understates, requeue).
		Pending(3, 1, liar, limit(48*time.Hour), func(j *planner.Job) { j.Claim = planner.Claim{Distrust: true, Note: "x"} }).
		Pending(4, 1, "", limit(48*time.Hour), understates).
		Pending(5, 1, liar, limit(40*time.Minute), understates).
		Pending(6, 4, long, limit(1000*time.Hour), understates).
		Pending(7, 1, liar, limit(48*time.Hour)).
		Pending(8, 1, liar+" preempt=yes", limit(48*time.Hour), understates).
		Pending(9, 4, long+" gpus=1-4", limit(1000*time.Hour), understates).Build()
	base := plan(t, "smd", planner.Options{}, s)
	run6 := base[6].PredictedEnd.Sub(base[6].PredictedStart)
	if run6 < time.Hour {
		t.Fatalf("job 6 predicted %v: the test wants a job of hours", run6)
	}
	want6 := planner.BoundLimit(run6, 3, 0)
	one := plan(t, "fifo", planner.Options{}, pt.Cluster("bind1", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Pending(9, 1, long, limit(1000*time.Hour), understates).Build())
	want9 := planner.BoundLimit(one[9].PredictedEnd.Sub(one[9].PredictedStart), 3, 0) // at 1 GPU, the slowest of 1-4
	if w := base[9].Workers; w <= 1 {
		t.Fatalf("job 9 planned on %d GPUs: the test wants it above the least of its range", w)
	}
	for _, tt := range []struct {
		name string
		o    planner.Options
		want map[int64]time.Duration
	}{
		{"off by default", planner.Options{}, map[int64]time.Duration{}},
		{"bound at the floor or the margin", planner.Options{BindClaims: true, ClaimMargin: 3},
			map[int64]time.Duration{1: 30 * time.Minute, 6: want6, 8: 30 * time.Minute, 9: want9}},
		{"a floor of an hour", planner.Options{BindClaims: true, ClaimMargin: 3, ClaimFloor: time.Hour},
			map[int64]time.Duration{1: time.Hour, 6: want6, 8: time.Hour, 9: want9}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := map[int64]time.Duration{}
			for id, d := range plan(t, "smd", tt.o, s) {
				if d.TimeLimit > 0 {
					got[id] = d.TimeLimit
					if !hasReason(d, planner.ReasonClaimBound) {
						t.Errorf("job %d bound without %s: %v", id, planner.ReasonClaimBound, d.Reasons)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bound limits (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := planner.BoundLimit(61*time.Second, 2, time.Second), 10*time.Minute; got != want {
		t.Errorf("BoundLimit under the least limit: %v, want %v", got, want)
	}
	if got, want := planner.BoundLimit(50*time.Minute+1, 2, 0), 101*time.Minute; got != want {
		t.Errorf("BoundLimit rounds up to minutes: %v, want %v", got, want)
	}
	if err := (planner.Options{ClaimMargin: 0.5}).Validate(); err == nil {
		t.Error("a claim margin below 1 validates")
	}
	if err := (planner.Options{ClaimFloor: time.Minute}).Validate(); err == nil {
		t.Error("a claim floor below MinBoundLimit validates")
	}
}

// TestClaimedPrediction: a decision of a job whose user's record corrects
// it carries the prediction before the correction (Decision.Claimed), so
// that the record compares real run times with what the hint claimed, not
// with its own correction; a job without a correction carries none.
func TestClaimedPrediction(t *testing.T) {
	h := "strata: model=resnet50 batch=64 iters=2000"
	build := func(c planner.Claim) *planner.Snapshot {
		return pt.Cluster("claimed", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
			Pending(1, 1, h, func(j *planner.Job) { j.TimeLimit = 48 * time.Hour; j.Claim = c }).Build()
	}
	raw := plan(t, "smd", planner.Options{}, build(planner.Claim{}))[1]
	rawRun := raw.PredictedEnd.Sub(raw.PredictedStart)
	if raw.Claimed != 0 {
		t.Errorf("uncorrected job carries Claimed %v, want 0", raw.Claimed)
	}
	for _, tt := range []struct {
		name string
		c    planner.Claim
		run  time.Duration
		why  planner.Reason
	}{
		{"corrected 3x", planner.Claim{Factor: 3, Jobs: 4, Note: "prediction ×3.00"}, 3 * rawRun, planner.ReasonPredictionCorrected},
		{"distrusted: timed by the limit", planner.Claim{Distrust: true, Jobs: 1, Note: "not trusted"}, 48 * time.Hour, planner.ReasonClaimDistrusted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := plan(t, "smd", planner.Options{}, build(tt.c))[1]
			if d.Claimed != rawRun {
				t.Errorf("Claimed %v, want the uncorrected prediction %v", d.Claimed, rawRun)
			}
			if run := d.PredictedEnd.Sub(d.PredictedStart); (run - tt.run).Abs() > time.Second {
				t.Errorf("predicted run %v, want %v", run, tt.run)
			}
			if !hasReason(d, tt.why) {
				t.Errorf("reasons %v, want %s", d.Reasons, tt.why)
			}
		})
	}
}

func hasReason(d planner.Decision, r planner.Reason) bool {
	for _, x := range d.Reasons {
		if x == r {
			return true
		}
	}
	return false
}
