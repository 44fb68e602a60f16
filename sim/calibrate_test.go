package sim

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestPerturbSpeeds(t *testing.T) {
	tests := []struct {
		name   string
		spread float64
		seed   uint64
	}{
		{name: "none", spread: 1, seed: 1},
		{name: "factor two, seed 1", spread: 2, seed: 1},
		{name: "factor four, seed 7", spread: 4, seed: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := readTraceFile(t, "testdata/pollux_workload1.csv")
			tr := readTraceFile(t, "testdata/pollux_workload1.csv")
			f := PerturbSpeeds(tr, SpeedError{Spread: tc.spread, Seed: tc.seed})
			again := PerturbSpeeds(readTraceFile(t, "testdata/pollux_workload1.csv"), SpeedError{Spread: tc.spread, Seed: tc.seed})
			if diff := cmp.Diff(f, again); diff != "" {
				t.Errorf("not deterministic:\n%s", diff)
			}
			if tc.spread <= 1 {
				if f != nil || !cmp.Equal(orig, tr) {
					t.Errorf("spread %v changed the trace (factors %v)", tc.spread, f)
				}
				return
			}
			for i, j := range tr.Jobs {
				x, ok := f[j.Model]
				if !ok || x < 1/tc.spread || x > tc.spread {
					t.Fatalf("job %d model %q: factor %v (ok %v) outside [1/%v, %v]", i, j.Model, x, ok, tc.spread, tc.spread)
				}
				if math.Abs(j.Duration-orig.Jobs[i].Duration*x) > 1e-9 {
					t.Errorf("job %d: duration %v, want %v × %v", i, j.Duration, orig.Jobs[i].Duration, x)
				}
			}
		})
	}
}

// TestOnlineCalibration: with the catalog off by up to 2× per model, smd
// with online calibration learns each model's factor from its first
// finished jobs (close to the true one), times the later jobs far better,
// and has fewer jobs killed at their time limit (sized for a speed they
// did not have).
func TestOnlineCalibration(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	run := func(calibrate bool) (*Result, map[string]float64) {
		tr := readTraceFile(t, "testdata/pollux_workload1.csv")
		truth := PerturbSpeeds(tr, SpeedError{Spread: 2, Seed: 1})
		// The absolute priority mode, where the scenario has kills to
		// save: in the nice mode (the default) this run has none, with or
		// without calibration (0 and 0).
		abs := planner.SiteDefaults()
		abs.PriorityMode = planner.PriorityAbsolute
		cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}, Calibrate: calibrate,
			Planner: &abs}
		r, err := RunNamed(context.Background(), cfg, tr, "smd")
		if err != nil {
			t.Fatal(err)
		}
		return r, truth
	}
	off, _ := run(false)
	on, truth := run(true)
	if off.Calibration != nil {
		t.Errorf("calibration stats without --calibrate: %+v", off.Calibration)
	}
	c := on.Calibration
	if c == nil || c.Jobs < 100 {
		t.Fatalf("calibration stats %+v: want most of the 160 jobs timed", c)
	}
	if c.ErrBefore < 0.2 || c.ErrAfter > 0.05 {
		t.Errorf("median |log2 error| %v uncalibrated, %v calibrated: want > 0.2 and < 0.05", c.ErrBefore, c.ErrAfter)
	}
	for _, f := range c.Factors {
		if x := truth[f.Model]; math.Abs(math.Log2(f.Factor/x)) > 0.1 {
			t.Errorf("model %s: fitted %.3f, true %.3f", f.Model, f.Factor, x)
		}
	}
	// Calibration never costs jobs. (It used to save some here: jobs shrunk
	// by the uncalibrated model outran their limits; planner.ShrinkMargin
	// now keeps such shrinks from being planned at all: 0 kills either way.)
	if on.TimeLimitKills > off.TimeLimitKills {
		t.Errorf("time-limit kills %d calibrated, %d not: want no more", on.TimeLimitKills, off.TimeLimitKills)
	}
}

// TestSiteTeachesTheModel (issue 32 target): a site whose models run up to
// 3× off the catalog (--speed-error 3, seeds 1-3), 20 users, learning from
// ended runs on: after each model's first LearnAfter runs, the prediction
// in force at a run's start is within 15 % of the real run (median, for
// every model with at least LearnAfter later runs). Seed 1 makes cifar10
// 2.65× slow: before its users kept their calibration votes, they were all
// left out as "unreliable" and the error stayed at 165 %.
func TestSiteTeachesTheModel(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	for seed := uint64(1); seed <= 3; seed++ {
		tr := AssignUsers(readTraceFile(t, "testdata/pollux_workload1.csv"), 20)
		PerturbSpeeds(tr, SpeedError{Spread: 3, Seed: seed})
		cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc},
			Calibrate: true, Scheduler: SchedulerSlurm}
		r, err := RunNamed(context.Background(), cfg, tr, "smd")
		if err != nil {
			t.Fatal(err)
		}
		if r.Calibration == nil || len(r.Calibration.Learned) == 0 {
			t.Fatalf("seed %d: no learning statistics", seed)
		}
		for _, m := range r.Calibration.Learned {
			if m.Runs >= LearnAfter && m.MedianErr > 0.15 {
				t.Errorf("seed %d: model %s after %d runs: median error %.0f %%, want ≤ 15 %%", seed, m.Model, LearnAfter, 100*m.MedianErr)
			}
		}
	}
}
