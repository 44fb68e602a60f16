package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// synthJob is one job on one GPU at constant power and utilization; its
// true energy is power × duration.
type synthJob struct {
	cluster    string
	id         int64
	user       string
	gpu        string
	submit     time.Time
	start, end time.Time
	powerW     float64
	util       float64
}

func (j synthJob) energyJ() float64 { return j.powerW * j.end.Sub(j.start).Seconds() }

// writeSynth stores each job as its collector would: samples of its GPU
// every 10 s from a minute before it starts to a minute after it ends, the
// job row and the closed assignment, in a batch of the job's cluster.
func writeSynth(t *testing.T, s *db.Store, jobs ...synthJob) {
	t.Helper()
	ctx := context.Background()
	for _, j := range jobs {
		b := db.Batch{Cluster: j.cluster}
		energy := uint64(1e9)
		for ts := j.start.Add(-time.Minute); !ts.After(j.end.Add(time.Minute)); ts = ts.Add(10 * time.Second) {
			energy += uint64(j.powerW * 10 * 1000)
			b.Samples = append(b.Samples, dcgm.Sample{Time: ts, Host: "node-" + j.gpu, UUID: j.gpu, UtilGPU: j.util,
				PowerW: j.powerW, EnergyMJ: energy, Source: "replay"})
		}
		b.Jobs = []planner.Job{{ID: j.id, Name: fmt.Sprintf("%s-%d", j.user, j.id), User: j.user, Account: "acct-" + j.user,
			Partition: "gpu", State: planner.JobCompleted, SubmitTime: j.submit, StartTime: j.start, GPUsPerJob: 1}}
		b.JobEnds = map[int64]time.Time{j.id: j.end}
		b.Assignments = []dcgm.Assignment{{Job: j.id, Host: "node-" + j.gpu, UUID: j.gpu, From: j.start, To: j.end}}
		if err := s.WriteBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
}

var synthT0 = time.Date(2026, 11, 10, 8, 0, 0, 0, time.UTC)

func refreshAll(t *testing.T, s *db.Store, from, to time.Time) {
	t.Helper()
	if _, err := s.RefreshReportRollups(context.Background(), from, to, 0); err != nil {
		t.Fatal(err)
	}
}

// Per-job energy has one definition: JobEnergyTotal agrees with the energy
// report, idle included (5 %, what docs/reports.md documents), and the
// second table is gone.
func TestOneEnergyDefinition(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, true)
	jobs := []synthJob{
		{id: 1, user: "alice", gpu: "GPU-A", submit: synthT0, start: synthT0, end: synthT0.Add(10 * time.Minute), powerW: 50, util: 3},
		{id: 2, user: "bob", gpu: "GPU-B", submit: synthT0, start: synthT0, end: synthT0.Add(10 * time.Minute), powerW: 300, util: 90},
	}
	writeSynth(t, s, jobs...)
	refreshAll(t, s, synthT0.Add(-time.Hour), synthT0.Add(time.Hour))
	if _, err := s.RefreshRollups(ctx, synthT0.Add(-time.Hour), synthT0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: db.ReportFilter{From: synthT0.Add(-time.Hour),
		To: synthT0.Add(time.Hour)}, By: []db.ReportDim{db.DimJob}})
	if err != nil {
		t.Fatal(err)
	}
	type figures struct{ Energy, GPUSec, IdleSec, IdleEnergy float64 }
	report, total := map[int64]figures{}, map[int64]figures{}
	for _, r := range rows {
		report[r.Job] = figures{r.EnergyJ, r.GPUSeconds, r.IdleGPUSeconds, r.IdleEnergyJ}
	}
	for _, j := range jobs {
		e, err := s.JobEnergyTotal(ctx, j.id)
		if err != nil {
			t.Fatal(err)
		}
		total[j.id] = figures{e.EnergyJ, e.GPUSeconds, e.IdleGPUSeconds, e.IdleEnergyJ}
	}
	if d := cmp.Diff(report, total, approx(1e-9)); d != "" {
		t.Errorf("JobEnergyTotal differs from the energy report (-report +JobEnergyTotal):\n%s", d)
	}
	// Job 1 runs at 3 %: idle all along by the documented 5 % rule.
	if f := report[1]; f.IdleSec != 600 || f.IdleEnergy != f.Energy {
		t.Errorf("job 1 at 3 %%: idle %v s, %v of %v J; want all 600 s idle", f.IdleSec, f.IdleEnergy, f.Energy)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var gone bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('job_energy') IS NULL`).Scan(&gone); err != nil || !gone {
		t.Errorf("table job_energy still exists (%v): a second definition of per-job energy", err)
	}
}
