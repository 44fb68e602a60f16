package planner_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// calibSnapshot has one idle node of four A100s and one pending cifar10 job
// (a catalog model with a work amount: its run time is modelled).
func calibSnapshot(cal *planner.Calibration) *planner.Snapshot {
	s := pt.Cluster("calib", t0).Partition("gpu", true).Nodes("n", 1, 4, 32, 256*1024, "gpu", "a100").
		Pending(1, 2, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4").
		Pending(2, 1, "no hint", pt.TimeLimit(time.Hour)).
		Build()
	s.Calibration = cal
	return s
}

func planOf(t *testing.T, s *planner.Snapshot, o planner.Options) map[int64]planner.Decision {
	t.Helper()
	p, err := planner.NewPolicy("smd", o)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]planner.Decision{}
	for _, d := range pl.Decisions {
		out[d.JobID] = d
	}
	return out
}

func TestCalibrationScalesModelledRunTime(t *testing.T) {
	base := planOf(t, calibSnapshot(nil), planner.Options{})[1]
	tests := []struct {
		name       string
		cal        *planner.Calibration
		opts       planner.Options
		wantFactor float64
		wantCalib  bool
		wantDetail string
	}{
		{name: "none", wantFactor: 1},
		{name: "other gpu type", cal: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "cifar10", GPUType: "v100", Factor: 2, Jobs: 5}}}, wantFactor: 1},
		{name: "other model", cal: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "resnet50", GPUType: "a100", Factor: 2, Jobs: 5}}}, wantFactor: 1},
		{name: "slower than modelled", cal: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "cifar10", GPUType: "a100", Factor: 2, Jobs: 5}}},
			wantFactor: 2, wantCalib: true, wantDetail: "modelled run time ×2.00, measured on 5 finished cifar10 jobs on a100"},
		{name: "power without energy weight", cal: &planner.Calibration{Power: []planner.GPUPower{{GPUType: "a100", Watts: 250, Jobs: 3}}}, wantFactor: 1},
		{name: "power with energy weight", cal: &planner.Calibration{Power: []planner.GPUPower{{GPUType: "a100", Watts: 250, Jobs: 3}}},
			opts: planner.Options{EnergyWeight: 1e-9}, wantFactor: 1, wantCalib: true, wantDetail: "energy at 250 W per GPU, measured on 3 finished jobs on a100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planOf(t, calibSnapshot(tc.cal), tc.opts)
			d := got[1]
			if d.Workers != base.Workers {
				t.Fatalf("workers %d, want %d (the factor scales every size alike)", d.Workers, base.Workers)
			}
			run := d.PredictedEnd.Sub(d.PredictedStart).Seconds()
			want := base.PredictedEnd.Sub(base.PredictedStart).Seconds() * tc.wantFactor
			if diff := cmp.Diff(want, run, cmpApprox(1)); diff != "" {
				t.Errorf("run time (-want +got):\n%s", diff)
			}
			if c := slices.Contains(d.Reasons, planner.ReasonCalibrated); c != tc.wantCalib {
				t.Errorf("reasons %v: calibrated %v, want %v", d.Reasons, c, tc.wantCalib)
			}
			if !strings.Contains(d.Detail, tc.wantDetail) || (tc.wantDetail == "") != (d.Detail == "") {
				t.Errorf("detail %q, want %q", d.Detail, tc.wantDetail)
			}
			if slices.Contains(got[2].Reasons, planner.ReasonCalibrated) {
				t.Errorf("unhinted job explained as calibrated: %v", got[2].Reasons)
			}
		})
	}
}

// A calibration that changes between calls of one policy must not be
// hidden by its memo.
func TestCalibrationChangeReachesMemoisedPolicy(t *testing.T) {
	p, err := planner.NewPolicy("smd", planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := func(f float64) *planner.Snapshot {
		return calibSnapshot(&planner.Calibration{Speed: []planner.SpeedFactor{{Model: "cifar10", GPUType: "a100", Factor: f, Jobs: 3}}})
	}
	if _, err := p.Plan(context.Background(), snap(1)); err != nil {
		t.Fatal(err)
	}
	got, err := p.Plan(context.Background(), snap(3))
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := planner.NewPolicy("smd", planner.Options{})
	want, err := fresh.Plan(context.Background(), snap(3))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("memoised plan after the factor changed (-fresh +memoised):\n%s", diff)
	}
}

func TestModelFactsAreUncalibrated(t *testing.T) {
	cal := &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "cifar10", GPUType: "a100", Factor: 2, Jobs: 5}}}
	base := planOf(t, calibSnapshot(nil), planner.Options{})[1]
	s := calibSnapshot(cal)
	p, _ := planner.NewPolicy("smd", planner.Options{})
	pl, err := p.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := planner.ModelFacts(s, pl, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]planner.ModelFact{1: {Model: "cifar10", GPUType: "a100", Run: base.PredictedEnd.Sub(base.PredictedStart)},
		2: {GPUType: "a100"}}
	if diff := cmp.Diff(want, facts, cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() <= time.Second })); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

// cmpApprox compares floats within tol.
func cmpApprox(tol float64) cmp.Option {
	return cmp.Comparer(func(a, b float64) bool { return a-b <= tol && b-a <= tol })
}
