package calib

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// job is a finished job of model on gpu with real = ratio × modelled,
// ended i minutes after t0.
func job(i int, model, gpu string, ratio float64) Job {
	return Job{End: t0.Add(time.Duration(i) * time.Minute), Model: model, GPUType: gpu,
		Modelled: time.Hour, Real: time.Duration(ratio * float64(time.Hour))}
}

func powered(i int, gpu string, watts, busy float64) Job {
	return Job{End: t0.Add(time.Duration(i) * time.Minute), GPUType: gpu, BusyEnergyJ: watts * busy, BusyGPUSeconds: busy}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name string
		jobs []Job
		cfg  Config
		want *planner.Calibration
	}{
		{name: "nothing", want: nil},
		{name: "below the minimum count", jobs: []Job{job(1, "bert", "a100", 2), job(2, "bert", "a100", 2)}, want: nil},
		{name: "median of three, gpu type lower-cased",
			jobs: []Job{job(3, "bert", "A100", 1.5), job(1, "bert", "a100", 9), job(2, "bert", "a100", 1.2)},
			cfg:  Config{MaxFactor: 10},
			want: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "bert", GPUType: "a100", Factor: 1.5, Jobs: 3}}}},
		{name: "even count: mean of the middle two",
			jobs: []Job{job(1, "bert", "a100", 1), job(2, "bert", "a100", 2), job(3, "bert", "a100", 3), job(4, "bert", "a100", 4)},
			want: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "bert", GPUType: "a100", Factor: 2.5, Jobs: 4}}}},
		{name: "only the most recent jobs count",
			jobs: []Job{job(1, "bert", "a100", 3), job(2, "bert", "a100", 3), job(3, "bert", "a100", 3), job(4, "bert", "a100", 1), job(5, "bert", "a100", 1), job(6, "bert", "a100", 1)},
			cfg:  Config{Recent: 3},
			want: &planner.Calibration{Speed: []planner.SpeedFactor{{Model: "bert", GPUType: "a100", Factor: 1, Jobs: 3}}}},
		{name: "clipped both ways, sorted by model then type",
			jobs: []Job{job(1, "vgg", "t4", 10), job(2, "vgg", "t4", 10), job(3, "vgg", "t4", 10),
				job(4, "bert", "v100", 0.01), job(5, "bert", "v100", 0.01), job(6, "bert", "v100", 0.01),
				job(7, "bert", "a100", 1), job(8, "bert", "a100", 1), job(9, "bert", "a100", 1)},
			want: &planner.Calibration{Speed: []planner.SpeedFactor{
				{Model: "bert", GPUType: "a100", Factor: 1, Jobs: 3},
				{Model: "bert", GPUType: "v100", Factor: 0.25, Jobs: 3},
				{Model: "vgg", GPUType: "t4", Factor: 4, Jobs: 3}}}},
		{name: "jobs without a model or a modelled time give no factor",
			jobs: []Job{job(1, "", "a100", 2), job(2, "", "a100", 2), job(3, "", "a100", 2),
				{End: t0, Model: "bert", GPUType: "a100", Real: time.Hour}, {End: t0, Model: "bert", GPUType: "a100", Real: time.Hour},
				{End: t0, Model: "bert", GPUType: "a100", Real: time.Hour}},
			want: nil},
		{name: "power: busy energy over busy time, per type",
			jobs: []Job{powered(1, "a100", 300, 100), powered(2, "a100", 200, 300), powered(3, "A100", 250, 100),
				powered(4, "t4", 70, 10), powered(5, "t4", 70, 10)},
			want: &planner.Calibration{Power: []planner.GPUPower{{GPUType: "a100", Watts: (30000 + 60000 + 25000) / 500.0, Jobs: 3}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Fit(tc.jobs, tc.cfg)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Fit (-want +got):\n%s", diff)
			}
		})
	}
}

// The order the jobs come in does not matter, only their end times.
func TestFitDeterministic(t *testing.T) {
	a := []Job{job(1, "bert", "a100", 1), job(2, "bert", "a100", 2), job(3, "bert", "a100", 5), job(4, "bert", "a100", 7)}
	b := []Job{a[3], a[1], a[0], a[2]}
	if diff := cmp.Diff(Fit(a, Config{Recent: 3}), Fit(b, Config{Recent: 3})); diff != "" {
		t.Errorf("order changed the fit:\n%s", diff)
	}
}
