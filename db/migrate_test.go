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

// at3 returns a store and a raw connection on a fresh database at schema
// version 3, the one before 004.
func at3(t *testing.T) (*db.Store, *pgx.Conn) {
	t.Helper()
	return atVersion(t, 3)
}

// atVersion returns a store and a raw connection on a fresh database at
// schema version v (skipped with -short).
func atVersion(t *testing.T, v int) (*db.Store, *pgx.Conn) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, false)
	if _, err := s.MigrateTo(ctx, v); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return s, conn
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func tableExists(t *testing.T, conn *pgx.Conn, name string) bool {
	t.Helper()
	var ok bool
	if err := conn.QueryRow(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// Migration 004 drops job_energy when job_gpu_hour covers every job-day it
// holds, and otherwise keeps its rows as job_energy_archive (their samples
// may be gone: nothing can recompute them).
func TestMigrate004JobEnergy(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		energyDays  []time.Time // job 1's job_energy rows
		wantArchive int         // rows kept in job_energy_archive; 0: table dropped
	}{
		{"covered by job_gpu_hour: dropped", []time.Time{day}, 0},
		{"a day only job_energy has: archived", []time.Time{day, day.AddDate(0, 0, -40)}, 2},
		{"empty: dropped", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, conn := at3(t)
			mustExec(t, conn, `INSERT INTO job_gpu_hour (hour, job_id, gpu_uuid, host, t_lo, t_hi, gpu_seconds, energy_j,
				util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j)
				VALUES ($1, 1, 'GPU-1', 'n1', $1, $2, 600, 1000, 54000, 600, 0, 0)`, day.Add(9*time.Hour), day.Add(9*time.Hour+10*time.Minute))
			for _, d := range tt.energyDays {
				mustExec(t, conn, `INSERT INTO job_energy (job_id, day, energy_j, gpu_seconds, util_gpu_seconds,
					idle_gpu_seconds, idle_energy_j, covered_seconds, counter_resets) VALUES (1, $1, 1000, 600, 540, 0, 0, 600, 0)`, d)
			}
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if tableExists(t, conn, "job_energy") {
				t.Error("job_energy still exists after 004")
			}
			if got := tableExists(t, conn, "job_energy_archive"); got != (tt.wantArchive > 0) {
				t.Fatalf("job_energy_archive exists = %v, want %v", got, tt.wantArchive > 0)
			}
			if tt.wantArchive > 0 {
				var n int
				if err := conn.QueryRow(ctx, `SELECT count(*) FROM job_energy_archive`).Scan(&n); err != nil || n != tt.wantArchive {
					t.Errorf("job_energy_archive: %d rows, %v; want %d", n, err, tt.wantArchive)
				}
			}
			// The rollup rows written before 004 are kept and read.
			e, err := s.JobEnergyTotal(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(db.JobEnergy{JobID: 1, EnergyJ: 1000, GPUSeconds: 600, UtilGPUSeconds: 540, CoveredSeconds: 600}, e); d != "" {
				t.Errorf("JobEnergyTotal after 004 (-want +got):\n%s", d)
			}
		})
	}
}

// Migration 004 keeps the jobs, assignments and rollups written under 003:
// each assignment and rollup row takes its job row's cluster (” without
// one), an unknown submit time stays unknown, and the reports read the
// rows as before; rollups recomputed afterwards agree.
func TestMigrate003To004KeepsData(t *testing.T) {
	ctx := context.Background()
	s, conn := at3(t)
	t0 := synthT0
	type gpuJob struct {
		id      int64
		cluster string // "-": no job row
		user    string
		submit  *time.Time
		gpu     string
		powerW  float64
	}
	sub := t0.Add(-time.Minute)
	jobs := []gpuJob{
		{1, "c1", "alice", &sub, "GPU-1", 100},
		{2, "", "bob", nil, "GPU-2", 200},
		{3, "-", "", nil, "GPU-3", 300},
	}
	var samples []dcgm.Sample
	for _, j := range jobs {
		energy := uint64(1e9)
		for ts := t0.Add(-time.Minute); !ts.After(t0.Add(11 * time.Minute)); ts = ts.Add(10 * time.Second) {
			energy += uint64(j.powerW * 10 * 1000)
			samples = append(samples, dcgm.Sample{Time: ts, Host: "n", UUID: j.gpu, UtilGPU: 50, PowerW: j.powerW,
				EnergyMJ: energy, Source: "replay"})
		}
		if j.cluster != "-" {
			mustExec(t, conn, `INSERT INTO job (job_id, cluster, name, user_name, account, partition, state, gpus,
				submit_time, start_time, end_time) VALUES ($1, $2, $3, $4, 'acct', 'gpu', 'COMPLETED', 1, $5, $6, $7)`,
				j.id, j.cluster, fmt.Sprintf("job%d", j.id), j.user, j.submit, t0, t0.Add(10*time.Minute))
		}
		mustExec(t, conn, `INSERT INTO gpu_assignment (job_id, host, gpu_uuid, t_from, t_to) VALUES ($1, 'n', $2, $3, $4)`,
			j.id, j.gpu, t0, t0.Add(10*time.Minute))
		// The 003 rollup of the job's hour, as InsertJobGPUHours wrote it.
		mustExec(t, conn, `INSERT INTO job_gpu_hour (hour, job_id, gpu_uuid, host, t_lo, t_hi, gpu_seconds, energy_j,
			util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j)
			VALUES ($1, $2, $3, 'n', $1, $4, 600, $5, 30000, 600, 0, 0)`, t0, j.id, j.gpu, t0.Add(10*time.Minute), j.powerW*600)
	}
	if err := s.InsertSamples(ctx, samples); err != nil { // same queries at 003 and 004
		t.Fatal(err)
	}
	if applied, err := s.Migrate(ctx); err != nil || len(applied) == 0 || applied[0] != 4 {
		t.Fatalf("migrate 003 → latest: %v, %v", applied, err)
	}
	if d := cmp.Diff([]string{"/2@? bob COMPLETED", "c1/1@07:59 alice COMPLETED"}, jobRows(t, conn)); d != "" {
		t.Errorf("jobs after 004 (-want +got):\n%s", d)
	}
	clusters := func(table string) map[int64]string {
		rows, err := conn.Query(ctx, `SELECT job_id, cluster FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]string{}
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				t.Fatal(err)
			}
			out[id] = c
		}
		return out
	}
	want := map[int64]string{1: "c1", 2: "", 3: ""}
	for _, table := range []string{"gpu_assignment", "job_gpu_hour"} {
		if d := cmp.Diff(want, clusters(table)); d != "" {
			t.Errorf("%s clusters (-want +got):\n%s", table, d)
		}
	}
	type row struct {
		Job           int64
		Cluster, User string
		Energy        float64
	}
	report := func() []row {
		rs, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: db.ReportFilter{From: t0, To: t0.Add(time.Hour)},
			By: []db.ReportDim{db.DimJob}})
		if err != nil {
			t.Fatal(err)
		}
		var out []row
		for _, r := range rs {
			out = append(out, row{r.Job, r.Cluster, r.User, r.EnergyJ})
		}
		return out
	}
	wantRows := []row{{1, "c1", "alice", 60000}, {2, "", "bob", 120000}, {3, "", "", 180000}}
	if d := cmp.Diff(wantRows, report(), approx(1e-9)); d != "" {
		t.Errorf("energy by job from the rollups written under 003 (-want +got):\n%s", d)
	}
	refreshAll(t, s, t0, t0.Add(time.Hour))
	if d := cmp.Diff(wantRows, report(), approx(1e-6)); d != "" {
		t.Errorf("energy by job recomputed after 004 (-want +got):\n%s", d)
	}
	// Waits need a known submit time: job 2's stays unknown, as under 003.
	usage, err := s.UsageReport(ctx, db.UsageQuery{ReportFilter: db.ReportFilter{From: t0, To: t0.Add(time.Hour)},
		By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	wantUsage := []db.UsageRow{{User: "", Jobs: 1, GPUSeconds: 600}, {User: "alice", Jobs: 1, GPUSeconds: 600,
		Completed: 1, MeanWaitSec: 60, MaxWaitSec: 60, MeanJCTSec: 660}, {User: "bob", Jobs: 1, GPUSeconds: 600}}
	if d := cmp.Diff(wantUsage, usage, approx(1e-9)); d != "" {
		t.Errorf("usage by user (-want +got):\n%s", d)
	}
	// The collector then reports job 2's submit time: the same job, now known.
	if err := s.UpsertJobs(ctx, "", []planner.Job{{ID: 2, User: "bob", State: planner.JobCompleted, SubmitTime: t0.Add(-2 * time.Minute)}}, nil); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"/2@07:58 bob COMPLETED", "c1/1@07:59 alice COMPLETED"}, jobRows(t, conn)); d != "" {
		t.Errorf("jobs after job 2's submit time is known (-want +got):\n%s", d)
	}
}
