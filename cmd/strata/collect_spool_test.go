package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// Two collectors told the same --spool-file while Postgres is down (issue
// 34.1): before, both appended to, sealed and drained one spool with their
// own segment numbers, and a drain stored 60 % of what they had
// acknowledged, without an error. Now the spool is the first collector's:
// the second exits with status 2 at once, naming the spool and the first
// one's PID, and every sample the first acknowledged is stored by the
// drain (a real Postgres).
func TestTwoCollectorsOneSpool(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres, the built binary)")
	}
	ctx := context.Background()
	url := dbtest.URL(t)
	dbtest.Open(t, url, true)
	bin := buildStrata(t)
	dir := t.TempDir()
	spool := filepath.Join(dir, "sp.jsonl")
	// Two recordings of distinct GPUs, so that every acknowledged sample
	// is its own row.
	recA := "../../dcgm/testdata/recording.jsonl"
	raw, err := os.ReadFile(recA)
	if err != nil {
		t.Fatal(err)
	}
	recB := filepath.Join(dir, "recording-b.jsonl")
	if err := os.WriteFile(recB, bytes.ReplaceAll(raw, []byte(`"GPU-5a7a`), []byte(`"GPU-5b7b`)), 0o600); err != nil {
		t.Fatal(err)
	}
	dead := deadDatabaseURL(t)
	metrics := freeAddr(t) // both told the same: the spool is named first
	collect := func(rec string, out *bytes.Buffer) *exec.Cmd {
		c := exec.Command(bin, "--log-level", "info", "collect", "--source", "replay", "--replay-file", rec,
			"--replay-speed", "60", "--batch-samples", "8", "--spool-file", spool, "--metrics-listen", metrics)
		c.Env = append(os.Environ(), "STRATA_DATABASE_URL="+dead)
		c.Stdout, c.Stderr = out, out
		return c
	}
	var outA, outB bytes.Buffer
	a := collect(recA, &outA)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	doneA := make(chan error, 1)
	go func() { doneA <- a.Wait() }()
	held := waitForHolder(t, spool+".lock", a.Process.Pid, doneA)
	errB := collect(recB, &outB).Run()
	select {
	case err := <-doneA:
		t.Fatalf("the first collector ended (%v) before the second one did: not a concurrent run\n%s", err, outA.String())
	default:
	}
	// One lock from start to end: a collector that let its spool go
	// between its start-up check and its run (a new lock file) could lose
	// it to one started a moment later, and be the one refused.
	if now, err := os.Stat(spool + ".lock"); err != nil || !os.SameFile(held, now) {
		t.Errorf("the first collector's lock file was replaced while it ran (%v): it let the spool go", err)
	}
	var ee *exec.ExitError
	if !errors.As(errB, &ee) || ee.ExitCode() != 2 {
		t.Errorf("second collector on the spool: %v, want exit status 2\n%s", errB, outB.String())
	}
	for _, want := range []string{spool, "process " + strconv.Itoa(a.Process.Pid)} {
		if !strings.Contains(outB.String(), want) {
			t.Errorf("second collector's error does not name %q:\n%s", want, outB.String())
		}
	}
	if err := <-doneA; err != nil {
		t.Fatalf("first collector: %v\n%s", err, outA.String())
	}
	if _, err := os.Stat(spool + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after the collector ended: %v", err)
	}
	// The drain: a collector's first flush, against the live database.
	st, err := db.Open(ctx, db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sp, err := db.OpenSpool(spool, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	if _, err := db.NewIngester(st, sp).Flush(ctx); err != nil {
		t.Fatal(err)
	}
	acked := 296 // the first collector's whole recording
	if errB == nil {
		acked *= 2 // the second one's too, when it was let run
	}
	stored := countSamples(t, url)
	t.Logf("acknowledged %d samples, stored %d; second collector: %v", acked, stored, errB)
	if stored != acked {
		t.Errorf("stored %d of %d acknowledged samples", stored, acked)
	}
}

// deadDatabaseURL is a Postgres URL on a local port nobody listens on.
func deadDatabaseURL(t *testing.T) string {
	return "postgres://strata@" + freeAddr(t) + "/strata?sslmode=disable&connect_timeout=1"
}

// waitForHolder waits until the spool lock names pid (the collector holds
// its spool) and returns the lock file's FileInfo, or fails when the
// collector ends first.
func waitForHolder(t *testing.T, lock string, pid int, done chan error) os.FileInfo {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if b, err := os.ReadFile(lock); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			if fi, err := os.Stat(lock); err == nil {
				return fi
			}
		}
		select {
		case err := <-done:
			t.Fatalf("collector %d ended (%v) before it held %s", pid, err, lock)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("collector %d never held %s", pid, lock)
	return nil
}

func countSamples(t *testing.T, url string) int {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM gpu_sample").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The default spool names the instance (issue 34.1: every collector of a
// host shared one default spool): collectors of two clusters, or of two
// sources, never share one.
func TestDefaultSpoolPathNamesTheInstance(t *testing.T) {
	tests := []struct {
		name, stateDir, cluster, source, want string
	}{
		{"source only", "", "", "exporter", "/var/lib/strata/collect-spool-exporter.jsonl"},
		{"cluster and source", "", "alpha", "dcgm", "/var/lib/strata/collect-spool-alpha-dcgm.jsonl"},
		{"systemd state directory", "/run/state", "beta", "nvml", "/run/state/collect-spool-beta-nvml.jsonl"},
		{"a cluster name that is no file name", "", "../a b/c", "replay", "/var/lib/strata/collect-spool-_a_b_c-replay.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("STATE_DIRECTORY", tt.stateDir)
			if d := cmp.Diff(tt.want, defaultSpoolPath(tt.cluster, tt.source)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
