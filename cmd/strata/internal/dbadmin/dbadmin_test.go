package dbadmin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
)

// fakeStore is a database with a schema version, pending migrations,
// sample partitions (oldest first, named by day) and jobs to roll up.
type fakeStore struct {
	version int
	pending []int
	parts   []string
	jobs    []int64
	cutoff  time.Time
}

func (f *fakeStore) Migrate(context.Context) ([]int, error) {
	if len(f.pending) > 0 {
		f.version = f.pending[len(f.pending)-1]
	}
	return f.pending, nil
}

func (f *fakeStore) SchemaVersion(context.Context) (int, error)         { return f.version, nil }
func (f *fakeStore) SamplePartitions(context.Context) ([]string, error) { return f.parts, nil }

func (f *fakeStore) DropSamplesBefore(_ context.Context, cutoff time.Time) ([]string, error) {
	f.cutoff = cutoff
	return f.parts, nil
}

func (f *fakeStore) RefreshRollups(context.Context, time.Time, time.Time) ([]int64, error) {
	return f.jobs, nil
}

func TestCommands(t *testing.T) {
	latest, err := db.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	parts := []string{"gpu_samples_20261120", "gpu_samples_20261121"}
	tests := []struct {
		name     string
		st       *fakeStore
		run      func(*fakeStore, *strings.Builder) error
		want     string
		wantCode int // 0: no error
	}{
		{"migrate: current", &fakeStore{version: latest},
			func(st *fakeStore, w *strings.Builder) error { return Migrate(context.Background(), w, st) },
			"schema is current (version " + itoa(latest) + ")\n", 0},
		{"migrate: applied", &fakeStore{version: 1, pending: []int{2, 3}},
			func(st *fakeStore, w *strings.Builder) error { return Migrate(context.Background(), w, st) },
			"applied migrations 2, 3; schema version 3\n", 0},
		{"status: current", &fakeStore{version: latest, parts: parts},
			func(st *fakeStore, w *strings.Builder) error { return Status(context.Background(), w, st) },
			"schema version: " + itoa(latest) + " (this strata expects " + itoa(latest) + ")\n" +
				"sample partitions: 2 (gpu_samples_20261120 … gpu_samples_20261121)\n", 0},
		{"status: no partitions", &fakeStore{version: latest},
			func(st *fakeStore, w *strings.Builder) error { return Status(context.Background(), w, st) },
			"schema version: " + itoa(latest) + " (this strata expects " + itoa(latest) + ")\nsample partitions: none\n", 0},
		{"status: behind", &fakeStore{version: latest - 1},
			func(st *fakeStore, w *strings.Builder) error { return Status(context.Background(), w, st) },
			"schema version: " + itoa(latest-1) + " (this strata expects " + itoa(latest) + ")\n" +
				"run `strata db migrate` before starting strata\n", 2},
		{"retention", &fakeStore{parts: parts},
			func(st *fakeStore, w *strings.Builder) error {
				return Retention(context.Background(), w, st, 48*time.Hour, now, zerolog.Nop())
			},
			"dropped gpu_samples_20261120\ndropped gpu_samples_20261121\n", 0},
		{"rollup", &fakeStore{jobs: []int64{7, 8}},
			func(st *fakeStore, w *strings.Builder) error {
				return Rollup(context.Background(), w, st, time.Hour, now)
			},
			"rolled up 2 jobs\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w strings.Builder
			err := tt.run(tt.st, &w)
			var refused RefusedError
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantCode != 0 && (!errors.As(err, &refused) || refused.ExitCode() != tt.wantCode):
				t.Errorf("err = %v, want exit status %d", err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, w.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetentionCutoff(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	st := &fakeStore{}
	if err := Retention(context.Background(), &strings.Builder{}, st, 30*24*time.Hour, now, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if want := now.Add(-30 * 24 * time.Hour); !st.cutoff.Equal(want) {
		t.Errorf("cutoff %v, want %v", st.cutoff, want)
	}
}

func itoa(n int) string { return joinInts([]int{n}) }
