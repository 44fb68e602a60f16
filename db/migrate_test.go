package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// at3 returns a store and a raw connection on a fresh database at schema
// version 3, the one before 004.
func at3(t *testing.T) (*db.Store, *pgx.Conn) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, false)
	if _, err := s.MigrateTo(ctx, 3); err != nil {
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
