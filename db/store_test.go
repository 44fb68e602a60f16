package db_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

func TestMigrateAndCheckSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.Open(t, dbtest.URL(t), false)
	if err := s.CheckSchema(ctx); !errors.Is(err, db.ErrSchemaBehind) {
		t.Fatalf("fresh database: CheckSchema = %v, want ErrSchemaBehind", err)
	}
	latest, err := db.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	applied, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for v := 1; v <= latest; v++ {
		want = append(want, v)
	}
	if d := cmp.Diff(want, applied); d != "" {
		t.Errorf("applied (-want +got):\n%s", d)
	}
	again, err := s.Migrate(ctx)
	if err != nil || len(again) != 0 {
		t.Errorf("second migrate applied %v, err %v; want nothing", again, err)
	}
	if err := s.CheckSchema(ctx); err != nil {
		t.Errorf("CheckSchema after migrate: %v", err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, latest)
	}
}

// MigrateTo stops at the version asked for, continues from there, and
// refuses to go back.
func TestMigrateTo(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.Open(t, dbtest.URL(t), false)
	latest, err := db.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		to      int
		applied []int
		version int
		err     error
	}{
		{to: 2, applied: []int{1, 2}, version: 2},
		{to: 2, applied: nil, version: 2},
		{to: 3, applied: []int{3}, version: 3},
		{to: 1, version: 3, err: db.ErrSchemaAhead},
		{to: latest, applied: seq(4, latest), version: latest},
	}
	for _, tt := range tests {
		applied, err := s.MigrateTo(ctx, tt.to)
		if !errors.Is(err, tt.err) {
			t.Fatalf("MigrateTo(%d): err = %v, want %v", tt.to, err, tt.err)
		}
		if d := cmp.Diff(tt.applied, applied); d != "" {
			t.Errorf("MigrateTo(%d) applied (-want +got):\n%s", tt.to, d)
		}
		if v, err := s.SchemaVersion(ctx); err != nil || v != tt.version {
			t.Errorf("after MigrateTo(%d): version %d, %v; want %d", tt.to, v, err, tt.version)
		}
	}
	if _, err := s.MigrateTo(ctx, latest+1); err == nil {
		t.Errorf("MigrateTo(%d) past the latest version: no error", latest+1)
	}
}

// seq returns from..to (nil when to < from).
func seq(from, to int) []int {
	var out []int
	for v := from; v <= to; v++ {
		out = append(out, v)
	}
	return out
}

// Per-job energy of the demo recording (shared node, reversed minors, a
// multi-node job, a counter reset) must match the known truth within 0.5 %.
func TestJobEnergyMatchesRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		t.Fatal(err)
	}
	s := dbtest.New(t)
	ingestRecording(t, db.NewIngester(s, openSpool(t)), rec.Samples, rec.Schedule, 6, nil)
	first, last := rec.Samples[0].Time, rec.Samples[len(rec.Samples)-1].Time
	if _, err := s.RefreshReportRollups(ctx, first, last.Add(time.Second), 0); err != nil {
		t.Fatal(err)
	}
	for _, j := range rec.Schedule.Jobs {
		got, err := s.JobEnergyTotal(ctx, j.Job)
		if err != nil {
			t.Fatalf("job %d: %v", j.Job, err)
		}
		rel := math.Abs(got.EnergyJ-j.EnergyJ) / j.EnergyJ
		t.Logf("job %d: %.1f J measured, %.1f J true (%.4f %% off), %d resets", j.Job, got.EnergyJ, j.EnergyJ, 100*rel, got.CounterResets)
		if rel > 0.005 {
			t.Errorf("job %d: energy %.1f J, want %.1f J (off by %.3f %%)", j.Job, got.EnergyJ, j.EnergyJ, 100*rel)
		}
		gpus := 0
		for _, a := range j.Allocs {
			gpus += len(a.Indices)
		}
		if want := float64(gpus) * j.End.Sub(j.Start).Seconds(); got.GPUSeconds != want {
			t.Errorf("job %d: %v GPU-seconds, want %v", j.Job, got.GPUSeconds, want)
		}
		if got.MeanUtil() < 70 || got.IdleGPUSeconds != 0 {
			t.Errorf("job %d: mean util %.1f %%, idle %v s; want busy GPUs", j.Job, got.MeanUtil(), got.IdleGPUSeconds)
		}
		if wantResets := map[int64]int{103: 1}[j.Job]; got.CounterResets != wantResets {
			t.Errorf("job %d: %d counter resets, want %d", j.Job, got.CounterResets, wantResets)
		}
	}
	if _, err := s.JobEnergyTotal(ctx, 999); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("unknown job: err = %v, want ErrNotFound", err)
	}
}

func TestInsertSamplesIsIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		t.Fatal(err)
	}
	s := dbtest.New(t)
	half := rec.Samples[:len(rec.Samples)/2]
	if err := s.InsertSamples(ctx, half); err != nil {
		t.Fatal(err)
	}
	// Overlapping batch: takes the merge path, adds only the missing rows.
	if err := s.InsertSamples(ctx, rec.Samples); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertSamples(ctx, rec.Samples); err != nil {
		t.Fatal(err)
	}
	n, err := s.CountSamples(ctx, time.Time{}, time.Now().Add(1e6*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(rec.Samples)) {
		t.Errorf("stored %d samples, want %d", n, len(rec.Samples))
	}
}

func TestRetentionDropsOldDays(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.New(t)
	day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var samples []dcgm.Sample
	for d := 0; d < 3; d++ {
		samples = append(samples, dcgm.Sample{Time: day.AddDate(0, 0, d), Host: "n", UUID: "GPU-1", Source: "replay"})
	}
	if err := s.InsertSamples(ctx, samples); err != nil {
		t.Fatal(err)
	}
	dropped, err := s.DropSamplesBefore(ctx, day.AddDate(0, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"gpu_sample_20261101", "gpu_sample_20261102"}, dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
	left, err := s.SamplePartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"gpu_sample_20261103"}, left); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	// Inserting into a dropped day recreates its partition.
	if err := s.InsertSamples(ctx, samples[:1]); err != nil {
		t.Fatalf("insert after retention: %v", err)
	}
}
