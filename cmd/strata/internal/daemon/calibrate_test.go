package daemon

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
)

// TestDaemonCalibrates (issue 16.3): finished cifar10 jobs on A100s that
// took twice their modelled time make the next cycle plan cifar10 at ×2,
// said in the decision; the model facts are recorded with the decision;
// an outage keeps the factor; --calibrate=false plans uncorrected.
func TestDaemonCalibrates(t *testing.T) {
	snap := func() *planner.Snapshot {
		return plannertest.Cluster("snap", testNow).Partition("gpu", true).
			Nodes("node", 1, 4, 16, 64000, "gpu", "a100").
			Pending(10, 2, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4").
			Build()
	}
	pg := newFakePostgres()
	for i := range 3 {
		end := testNow.Add(-time.Duration(i+1) * time.Hour)
		pg.calibration = append(pg.calibration, db.CalibrationJob{JobID: int64(i + 1), End: end, Model: "cifar10", GPUType: "a100",
			ModelSeconds: 600, RealSeconds: 1200, BusyEnergyJ: 250 * 1200, BusyGPUSeconds: 1200})
	}
	tests := []struct {
		name      string
		calibrate bool
		want      bool
	}{
		{name: "on", calibrate: true, want: true},
		{name: "off", calibrate: false, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg.SetDown(false)
			cl := newFakeCluster(snap())
			bed := testBed{cl: cl, pg: pg, m: NewMetrics()}
			o := testOptions()
			o.Calibrate = tc.calibrate
			d := newTestDaemon(t, bed, o)
			now := testNow
			d.deps.Now = func() time.Time { return now }
			check := func(when string) {
				t.Helper()
				res, err := d.RunOnce(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				dc := res.Plan.Decisions[0]
				if got := slices.Contains(dc.Reasons, planner.ReasonCalibrated); got != tc.want {
					t.Errorf("%s: reasons %v: calibrated %v, want %v", when, dc.Reasons, got, tc.want)
				}
				if tc.want && !strings.Contains(dc.Detail, "×2.00, measured on 3 finished cifar10 jobs on a100") {
					t.Errorf("%s: detail %q", when, dc.Detail)
				}
			}
			check("first cycle")
			pg.SetDown(true)
			now = now.Add(10 * time.Minute)
			check("during an outage")
		})
	}
}

// The decisions recorded carry the uncalibrated model facts.
func TestRecordStoresModelFacts(t *testing.T) {
	snap := plannertest.Cluster("snap", testNow).Partition("gpu", true).
		Nodes("node", 1, 4, 16, 64000, "gpu", "a100").
		Pending(10, 2, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4").
		Pending(11, 1, "", plannertest.TimeLimit(time.Hour)).
		Build()
	bed := testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}
	d := newTestDaemon(t, bed, testOptions())
	d.deps.Now = func() time.Time { return testNow }
	res, err := d.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type fact struct {
		Has            bool
		Model, GPUType string
		Modelled       bool
	}
	got := map[int64]fact{}
	for _, cd := range res.Record.Decisions {
		got[cd.JobID] = fact{cd.HasFacts, cd.Model, cd.GPUType, cd.ModelRun > 0}
	}
	want := map[int64]fact{10: {true, "cifar10", "a100", true}, 11: {true, "", "a100", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model facts (-want +got):\n%s", diff)
	}
}

// The calibrator reads at most every calibEvery, re-reads the last hour
// (a job's busy-power rollup may come after its end) without counting a
// job twice, and forgets jobs older than calibWindow.
func TestCalibratorRefresh(t *testing.T) {
	pg := newFakePostgres()
	job := func(id int64, end time.Time, busy float64) db.CalibrationJob {
		return db.CalibrationJob{JobID: id, End: end, Model: "bert", GPUType: "a100", ModelSeconds: 100, RealSeconds: 150,
			BusyEnergyJ: 200 * busy, BusyGPUSeconds: busy}
	}
	for i := range 3 {
		pg.calibration = append(pg.calibration, job(int64(i+1), testNow.Add(-time.Duration(3-i)*time.Minute), 0))
	}
	var c calibrator
	log := zerolog.Nop()
	type state struct {
		Speed []planner.SpeedFactor
		Power []planner.GPUPower
	}
	get := func() state {
		if c.cal == nil {
			return state{}
		}
		return state{c.cal.Speed, c.cal.Power}
	}
	speed := []planner.SpeedFactor{{Model: "bert", GPUType: "a100", Factor: 1.5, Jobs: 3}}
	steps := []struct {
		name  string
		at    time.Duration
		setup func()
		want  state
	}{
		{name: "first read", at: 0, want: state{Speed: speed}},
		{name: "the rollups of the three jobs arrive; too soon to re-read", at: time.Minute, setup: func() {
			for i := range pg.calibration {
				pg.calibration[i].BusyEnergyJ, pg.calibration[i].BusyGPUSeconds = 200*60, 60
			}
		}, want: state{Speed: speed}},
		{name: "re-read: the same jobs, now with power", at: 6 * time.Minute,
			want: state{Speed: speed, Power: []planner.GPUPower{{GPUType: "a100", Watts: 200, Jobs: 3}}}},
		{name: "an outage keeps the calibration", at: 12 * time.Minute, setup: func() { pg.SetDown(true) },
			want: state{Speed: speed, Power: []planner.GPUPower{{GPUType: "a100", Watts: 200, Jobs: 3}}}},
		{name: "after 30 days the jobs are forgotten", at: calibWindow + time.Hour, setup: func() { pg.SetDown(false) }},
	}
	for _, s := range steps {
		if s.setup != nil {
			s.setup()
		}
		c.refresh(context.Background(), pg, "c", testNow.Add(s.at), log)
		if diff := cmp.Diff(s.want, get()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
}
