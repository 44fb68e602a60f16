package main

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
)

// strata db migrate, then strata collect --source replay of the demo
// recording: every job's rolled-up energy within 0.5 % of the known truth.
func TestCollectReplayFillsDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Setenv("STRATA_DATABASE_URL", dbtest.URL(t))
	out, err := runStrataDB(t, "db", "migrate")
	if err != nil || !strings.Contains(out, "applied migrations 1,") {
		t.Fatalf("db migrate: %v\n%s", err, out)
	}
	out, err = runStrataDB(t, "collect", "--source", "replay",
		"--replay-file", "../../dcgm/testdata/recording.jsonl", "--schedule", "../../dcgm/testdata/schedule.json",
		"--spool-file", t.TempDir()+"/spool.jsonl", "--metrics-listen", "")
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, out)
	}
	sched, err := dcgm.ReadSchedule("../../dcgm/testdata/schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	st := dbtest.Open(t, os.Getenv("STRATA_DATABASE_URL"), false)
	for _, j := range sched.Jobs {
		got, err := st.JobEnergyTotal(context.Background(), j.Job)
		if err != nil {
			t.Fatalf("job %d: %v", j.Job, err)
		}
		if rel := math.Abs(got.EnergyJ-j.EnergyJ) / j.EnergyJ; rel > 0.005 {
			t.Errorf("job %d: %.1f J, want %.1f J (%.3f %% off)", j.Job, got.EnergyJ, j.EnergyJ, 100*rel)
		}
	}
	// The collector also keeps the hourly report rollups current: the energy
	// report agrees with the recording without a manual `report refresh`.
	out, err = runStrataDB(t, "report", "energy", "--by", "job", "-P", "-n", "--format", "JobID,EnergyRaw",
		"-S", "2026-11-20T00:00:00", "-E", "2026-11-21T00:00:00", "--timezone", "UTC")
	if err != nil {
		t.Fatalf("report energy: %v\n%s", err, out)
	}
	reported := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, j, ok := strings.Cut(line, "|"); ok {
			reported[id] = j
		}
	}
	for _, j := range sched.Jobs {
		raw, ok := reported[strconv.FormatInt(j.Job, 10)]
		if !ok {
			t.Errorf("job %d missing from the energy report:\n%s", j.Job, out)
			continue
		}
		got, err := parseJoules(raw)
		if err != nil {
			t.Fatalf("job %d EnergyRaw %q: %v", j.Job, raw, err)
		}
		if rel := math.Abs(got-j.EnergyJ) / j.EnergyJ; rel > 0.005 {
			t.Errorf("report: job %d %.1f J, want %.1f J (%.3f %% off)", j.Job, got, j.EnergyJ, 100*rel)
		}
	}
	out, err = runStrataDB(t, "db", "status")
	if err != nil || !strings.Contains(out, "gpu_sample_20261120") {
		t.Errorf("db status: %v\n%s", err, out)
	}
}

// parseJoules reads an EnergyRaw cell: joules, possibly with a K/M/G suffix.
func parseJoules(s string) (float64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1e3, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1e9, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * mult, err
}

func TestCollectRefusesOldSchemaAndArgvPasswords(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	url := dbtest.URL(t) // never migrated
	t.Setenv("STRATA_DATABASE_URL", url)
	_, err := runStrataDB(t, "collect", "--source", "replay", "--replay-file", "../../dcgm/testdata/recording.jsonl",
		"--spool-file", t.TempDir()+"/spool.jsonl", "--metrics-listen", "")
	if code := exitCodeOf(err); code != 2 || !strings.Contains(err.Error(), "strata db migrate") {
		t.Errorf("collect on an unmigrated database: err = %v (exit %d), want exit 2 asking for migrate", err, code)
	}
	t.Setenv("STRATA_DATABASE_URL", "")
	_, err = runStrataDB(t, "db", "status", "--database-url", "postgres://u:secret@127.0.0.1:1/x")
	if code := exitCodeOf(err); code != 2 || strings.Contains(err.Error(), "secret") {
		t.Errorf("password in argv: err = %v (exit %d), want exit 2 without echoing it", err, code)
	}
}
