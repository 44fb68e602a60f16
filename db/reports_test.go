package db_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// demoStore is a fresh database holding the demo recording, ingested the
// way the collector does, with report rollups refreshed.
func demoStore(t *testing.T) (*db.Store, dcgm.Schedule) {
	t.Helper()
	s, sched, _ := demoDatabase(t)
	return s, sched
}

// demoDatabase is demoStore with the database's URL (for tests that query
// it with SQL of their own).
func demoDatabase(t *testing.T) (*db.Store, dcgm.Schedule, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	u := dbtest.URL(t)
	s := dbtest.Open(t, u, true)
	f := filepath.Join("..", "dcgm", "testdata")
	rep, err := dcgm.OpenReplay(filepath.Join(f, "recording.jsonl"), dcgm.ReplayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var samples []dcgm.Sample
	for {
		sw, err := rep.Snapshot(ctx)
		if err != nil {
			break
		}
		samples = append(samples, sw...)
	}
	sched, err := dcgm.ReadSchedule(filepath.Join(f, "schedule.json"))
	if err != nil {
		t.Fatal(err)
	}
	ingestRecording(t, db.NewIngester(s, openSpool(t)), samples, sched, 6, nil)
	if _, err := s.RefreshReportRollups(ctx, demoT0.Add(-time.Hour), demoT0.Add(time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	return s, sched, u
}

var demoT0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func window(from, to time.Duration) db.ReportFilter {
	return db.ReportFilter{From: demoT0.Add(from), To: demoT0.Add(to)}
}

func approx(rel float64) cmp.Option {
	return cmpopts.EquateApprox(rel, 1e-6)
}

// Every job's report energy matches the recording's true energy within
// 0.5 % and JobEnergyTotal (the same rollups, summed by day); GPU time is
// exact.
func TestEnergyReportByJobMatchesTruth(t *testing.T) {
	s, sched := demoStore(t)
	ctx := context.Background()
	rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(-time.Hour, time.Hour), By: []db.ReportDim{db.DimJob}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][2]float64{}
	for _, r := range rows {
		got[r.Job] = [2]float64{r.EnergyJ, r.GPUSeconds}
	}
	want := map[int64][2]float64{}
	for _, j := range sched.Jobs {
		gpus := 0
		for _, a := range j.Allocs {
			gpus += len(a.Indices)
		}
		want[j.Job] = [2]float64{j.EnergyJ, float64(gpus) * j.End.Sub(j.Start).Seconds()}
		total, err := s.JobEnergyTotal(ctx, j.Job)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(got[j.Job][0]-total.EnergyJ) / total.EnergyJ; d > 0.001 {
			t.Errorf("job %d: report %.1f J, job rollup %.1f J (%.3f%% apart)", j.Job, got[j.Job][0], total.EnergyJ, 100*d)
		}
	}
	if d := cmp.Diff(want, got, approx(0.005)); d != "" {
		t.Errorf("energy, GPU-seconds by job (-truth +report):\n%s", d)
	}
}

// A window cutting jobs is pro-rated: two halves add up to the whole, and
// GPU time inside each half is the exact overlap.
func TestEnergyReportProRatesWindowEdges(t *testing.T) {
	s, _ := demoStore(t)
	ctx := context.Background()
	by := []db.ReportDim{db.DimJob}
	whole, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(0, 10*time.Minute), By: by})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(0, 2*time.Minute), By: by})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(2*time.Minute, 10*time.Minute), By: by})
	if err != nil {
		t.Fatal(err)
	}
	sum := map[int64][2]float64{}
	for _, r := range append(first, second...) {
		v := sum[r.Job]
		sum[r.Job] = [2]float64{v[0] + r.EnergyJ, v[1] + r.GPUSeconds}
	}
	want := map[int64][2]float64{}
	for _, r := range whole {
		want[r.Job] = [2]float64{r.EnergyJ, r.GPUSeconds}
	}
	if d := cmp.Diff(want, sum, approx(1e-9)); d != "" {
		t.Errorf("halves do not add up (-whole +halves):\n%s", d)
	}
	// 12:00–12:02: job 101 holds 2 GPUs all along, 102 from 12:01, 103
	// from 12:00:30; 104 has not started.
	gotSec := map[int64]float64{}
	for _, r := range first {
		gotSec[r.Job] = r.GPUSeconds
	}
	if d := cmp.Diff(map[int64]float64{101: 240, 102: 120, 103: 180}, gotSec, approx(1e-9)); d != "" {
		t.Errorf("GPU-seconds in 12:00–12:02 (-want +got):\n%s", d)
	}
}

// Grouping by user, account, node and day adds up the right jobs; filters
// restrict them.
func TestEnergyReportGroupsAndFilters(t *testing.T) {
	s, _ := demoStore(t)
	ctx := context.Background()
	byJob := map[int64]db.EnergyRow{}
	rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(0, time.Hour), By: []db.ReportDim{db.DimJob}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		byJob[r.Job] = r
	}
	e := func(ids ...int64) float64 {
		var sum float64
		for _, id := range ids {
			sum += byJob[id].EnergyJ
		}
		return sum
	}
	type key struct{ User, Account, Node, Day string }
	tests := []struct {
		name string
		q    db.EnergyQuery
		want map[key]float64
	}{
		{"user", db.EnergyQuery{By: []db.ReportDim{db.DimUser}},
			map[key]float64{{User: "alice"}: e(101, 103), {User: "bob"}: e(102), {User: "carol"}: e(104)}},
		{"account", db.EnergyQuery{By: []db.ReportDim{db.DimAccount}},
			map[key]float64{{Account: "vision"}: e(101, 104), {Account: "nlp"}: e(102, 103)}},
		{"total", db.EnergyQuery{}, map[key]float64{{}: e(101, 102, 103, 104)}},
		{"user,day", db.EnergyQuery{By: []db.ReportDim{db.DimUser, db.DimDay}},
			map[key]float64{{User: "alice", Day: "2026-11-20"}: e(101, 103), {User: "bob", Day: "2026-11-20"}: e(102),
				{User: "carol", Day: "2026-11-20"}: e(104)}},
		{"filter user", db.EnergyQuery{ReportFilter: db.ReportFilter{Users: []string{"alice"}}, By: []db.ReportDim{db.DimUser}},
			map[key]float64{{User: "alice"}: e(101, 103)}},
		{"filter other cluster", db.EnergyQuery{ReportFilter: db.ReportFilter{Clusters: []string{"elsewhere"}}}, map[key]float64{}},
		{"filter this cluster", db.EnergyQuery{ReportFilter: db.ReportFilter{Clusters: []string{""}}}, map[key]float64{{}: e(101, 102, 103, 104)}},
		{"filter job+account", db.EnergyQuery{ReportFilter: db.ReportFilter{Accounts: []string{"nlp"}, Jobs: []int64{103, 104}}},
			map[key]float64{{}: e(103)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.From, q.To = demoT0, demoT0.Add(time.Hour)
			rows, err := s.EnergyReport(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[key]float64{}
			for _, r := range rows {
				day := ""
				if !r.Bucket.IsZero() {
					day = r.Bucket.Format("2006-01-02")
				}
				got[key{r.User, r.Account, r.Node, day}] = r.EnergyJ
			}
			if d := cmp.Diff(tt.want, got, approx(1e-9)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Node grouping splits job 104 between its two nodes; idle energy is the
// idle GPU's share only.
func TestEnergyReportByNodeAndIdle(t *testing.T) {
	s, _ := demoStore(t)
	rows, err := s.EnergyReport(context.Background(), db.EnergyQuery{ReportFilter: window(0, time.Hour),
		By: []db.ReportDim{db.DimNode}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{}
	for _, r := range rows {
		got[r.Node] = [2]float64{r.GPUSeconds, float64(r.Jobs)}
		if r.IdleEnergyJ < 0 || r.IdleEnergyJ > r.EnergyJ || r.UtilGPU <= 0 || r.UtilGPU > 100 {
			t.Errorf("node %s: idle %.1f J of %.1f J, util %.1f%%: out of range", r.Node, r.IdleEnergyJ, r.EnergyJ, r.UtilGPU)
		}
	}
	// gpu-a: 101 2×240 s, 102 2×240 s, 104 2×90 s; gpu-b: 103 2×300 s, 104 1×90 s.
	want := map[string][2]float64{"gpu-a": {1140, 3}, "gpu-b": {690, 2}}
	if d := cmp.Diff(want, got, approx(1e-9)); d != "" {
		t.Errorf("GPU-seconds, jobs by node (-want +got):\n%s", d)
	}
}

func TestUsageReport(t *testing.T) {
	s, _ := demoStore(t)
	rows, err := s.UsageReport(context.Background(), db.UsageQuery{ReportFilter: window(0, time.Hour),
		By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	// alice: 101 waits 120 s, JCT 360 s; 103 waits 30 s, JCT 330 s.
	want := []db.UsageRow{
		{User: "alice", Jobs: 2, GPUSeconds: 480 + 600, Completed: 2, MeanWaitSec: 75, MaxWaitSec: 120, MeanJCTSec: 345},
		{User: "bob", Jobs: 1, GPUSeconds: 480, Completed: 1, MeanWaitSec: 90, MaxWaitSec: 90, MeanJCTSec: 330},
		{User: "carol", Jobs: 1, GPUSeconds: 270, Completed: 1, MeanWaitSec: 70, MaxWaitSec: 70, MeanJCTSec: 160},
	}
	if d := cmp.Diff(want, rows, approx(1e-9)); d != "" {
		t.Errorf("usage by user (-want +got):\n%s", d)
	}
}

func TestDecisionReportAndJobReport(t *testing.T) {
	s, _ := demoStore(t)
	ctx := context.Background()
	dec := func(job int64, a planner.Action, outcome decide.Outcome, rs ...planner.Reason) db.CycleDecision {
		return db.CycleDecision{Decision: planner.Decision{JobID: job, Action: a, Reasons: rs}, Outcome: outcome}
	}
	for i, ds := range [][]db.CycleDecision{
		{dec(101, planner.ActionUpdate, decide.Applied, "smd_optimal"), dec(102, planner.ActionKeep, decide.Kept)},
		{dec(101, planner.ActionUpdate, decide.DryRun, "smd_optimal"), dec(104, planner.ActionKeep, decide.Kept)},
	} {
		c := &db.Cycle{Cluster: "test", SnapshotID: "s", Policy: "smd", StartedAt: demoT0.Add(time.Duration(i) * time.Minute), Decisions: ds}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.DecisionReport(ctx, db.DecisionQuery{ReportFilter: window(0, time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := []db.DecisionRow{
		{Action: string(planner.ActionKeep), Reason: "", Decisions: 2, Jobs: 2, Cycles: 2, First: demoT0, Last: demoT0.Add(time.Minute)},
		{Action: string(planner.ActionUpdate), Reason: "smd_optimal", Decisions: 2, Applied: 1, Jobs: 1, Cycles: 2, First: demoT0, Last: demoT0.Add(time.Minute)},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}

	jr, err := s.JobReport(ctx, 104, db.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jr.GPUs) != 3 || len(jr.Decisions) != 1 || len(jr.Series) == 0 || jr.User != "carol" || jr.Totals.GPUSeconds != 270 {
		t.Errorf("job 104: %d GPUs, %d decisions, %d points, user %q, %.0f GPU-s; want 3, 1, >0, carol, 270",
			len(jr.GPUs), len(jr.Decisions), len(jr.Series), jr.User, jr.Totals.GPUSeconds)
	}
	rolled, activity, err := s.ReportFreshness(ctx)
	if end := demoT0.Add(6 * time.Minute); err != nil || !rolled.Equal(end) || !activity.Equal(end) {
		t.Errorf("freshness = %v, %v, %v; want both %v", rolled, activity, err, end)
	}
	if _, err := s.JobReport(ctx, 999, db.Scope{}); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("unknown job: err = %v, want ErrNotFound", err)
	}
}
