package report

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
)

var calT0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

func calJobs() []db.CalibrationJob {
	j := func(i int, model, gpu string, modelled, real, energy, busy float64) db.CalibrationJob {
		return db.CalibrationJob{JobID: int64(i), End: calT0.Add(time.Duration(i) * time.Hour), Model: model, GPUType: gpu,
			ModelSeconds: modelled, RealSeconds: real, BusyEnergyJ: energy, BusyGPUSeconds: busy}
	}
	return []db.CalibrationJob{
		j(1, "bert", "a100", 100, 200, 300*100, 100),
		j(2, "bert", "a100", 100, 150, 300*100, 100),
		j(3, "bert", "A100", 100, 400, 300*100, 100),
		j(4, "vgg16", "t4", 100, 50, 0, 0),
		j(5, "", "t4", 0, 50, 70*10, 10),
	}
}

func TestCalibrationRows(t *testing.T) {
	got := CalibrationRows(calJobs())
	want := []CalibrationOut{
		{Kind: "speed", Model: "bert", GPUType: "a100", Jobs: 3, Used: 3, Applies: true, Factor: 2, ErrBefore: 1, ErrAfter: 0.41503749927884376},
		{Kind: "speed", Model: "vgg16", GPUType: "t4", Jobs: 1, Used: 1, Applies: false, Factor: 0.5, ErrBefore: 1, ErrAfter: 0},
		{Kind: "power", GPUType: "a100", Jobs: 3, Used: 3, Applies: true, Watts: 300},
		{Kind: "power", GPUType: "t4", Jobs: 1, Used: 1, Applies: false, Watts: 70},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

type calSource []db.CalibrationJob

func (s calSource) CalibrationJobs(_ context.Context, _ string, since time.Time, limit int) ([]db.CalibrationJob, error) {
	var out []db.CalibrationJob
	for _, j := range s {
		if j.End.After(since) && len(out) < limit {
			out = append(out, j)
		}
	}
	return out, nil
}

func TestCalibrationOutput(t *testing.T) {
	f := db.ReportFilter{From: calT0, To: calT0.Add(4*time.Hour + time.Minute)} // jobs 1-4
	tests := []struct {
		name string
		mode OutputMode
		want []string
	}{
		{name: "table", want: []string{"Kind", "speed  bert", "2.00", "power", "300"}},
		{name: "csv", mode: OutputMode{CSV: true}, want: []string{"Kind,Model,GPUType,Jobs,Used,Applies,Factor,ErrBefore,ErrAfter,Watts\n",
			"speed,bert,a100,3,3,yes,2.00,1.00,0.42,\n", "speed,vgg16,t4,1,1,no,0.50,1.00,0.00,\n", "power,,a100,3,3,yes,,,,300\n"}},
		{name: "json", mode: OutputMode{JSON: true}, want: []string{`"kind": "speed"`, `"factor": 2`, `"watts": 300`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Calibration(context.Background(), &b, io.Discard, calSource(calJobs()), f, tc.mode); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "70") {
				t.Errorf("job 5 ended after the window but is counted:\n%s", b.String())
			}
		})
	}
}
