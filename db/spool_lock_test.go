package db_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// TestSpoolLockChild is the process of TestSpoolIsOneProcess that holds
// the spool: it says "held" and waits to be killed.
func TestSpoolLockChild(t *testing.T) {
	path := os.Getenv("STRATA_LOCK_SPOOL")
	if path == "" {
		t.Skip("child process of TestSpoolIsOneProcess")
	}
	if _, err := db.OpenSpool(path, 0); err != nil {
		t.Fatal(err)
	}
	fmt.Println("held")
	time.Sleep(time.Hour)
}

// A spool is one process's (issue 34.1): while a process holds it, another
// cannot open it and is told the holder's PID; once the holder dies
// (SIGKILL: nothing cleaned up), the lock it left is taken over; Close
// removes it.
func TestSpoolIsOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sp.jsonl")
	child := exec.Command(os.Args[0], "-test.run", "^TestSpoolLockChild$")
	child.Env = append(os.Environ(), "STRATA_LOCK_SPOOL="+path)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("child: %q, want held", line)
	}
	_, err = db.OpenSpool(path, 0)
	var le *db.SpoolLockedError
	if !errors.As(err, &le) || !errors.Is(err, db.ErrSpoolLocked) {
		t.Fatalf("open a held spool: %v, want a SpoolLockedError", err)
	}
	if d := cmp.Diff(db.SpoolLockedError{Path: path, PID: child.Process.Pid}, *le); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}
	for _, want := range []string{path, "process " + strconv.Itoa(child.Process.Pid), "--spool-file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	sp, err := db.OpenSpool(path, 0)
	if err != nil {
		t.Fatalf("open the spool of a killed collector: %v", err)
	}
	if b, _ := os.ReadFile(sp.LockPath()); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want this process's PID %d", b, os.Getpid())
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sp.LockPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Close: %v", err)
	}
	again, err := db.OpenSpool(path, 0)
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	again.Close()
}

// Samples that no source produces (issue 34.1: a spool line
// {"samples":[null]} was stored as a GPU-less sample of year 1) are moved
// to .damaged and counted, never stored; the valid samples of the same
// batch are (a real Postgres).
func TestSpoolInvalidSamplesDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres")
	}
	t.Parallel() // a database of its own (dbtest)
	const good = `{"time":"2026-11-20T12:00:00Z","host":"h","uuid":"GPU-ok","util_gpu":50,"power_w":100,"source":"replay"}`
	tests := []struct {
		name    string
		line    string
		stored  int
		damaged int64
	}{
		{"null sample", `{"samples":[null]}`, 0, 1},
		{"no time", `{"samples":[{"uuid":"GPU-x","host":"h"}]}`, 0, 1},
		{"no GPU", `{"samples":[{"time":"2026-11-20T12:00:00Z","host":"h"}]}`, 0, 1},
		{"power out of range", `{"samples":[{"time":"2026-11-20T12:00:00Z","uuid":"GPU-x","power_w":1e9}]}`, 0, 1},
		{"valid beside null", `{"samples":[` + good + `,null]}`, 1, 1},
		{"valid", `{"samples":[` + good + `]}`, 1, 0},
	}
	url := dbtest.URL(t)
	st := dbtest.Open(t, url, true)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func(t *testing.T) int {
		var n int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM gpu_sample").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := count(t)
			path := filepath.Join(t.TempDir(), "sp.jsonl")
			line := strings.ReplaceAll(tt.line, "GPU-ok", fmt.Sprintf("GPU-ok-%d", i)) // each case's own rows
			if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			sp, err := db.OpenSpool(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer sp.Close()
			// Postgres away twice first: the batch is read three times,
			// its invalid samples moved aside once.
			for range 2 {
				if _, err := sp.Drain(func(db.Batch) error { return errors.New("database down") }); err == nil && tt.stored > 0 {
					t.Fatal("a failed write drained the spool")
				}
			}
			if _, err := db.NewIngester(st, sp).Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			stored := count(t) - before
			got := struct {
				Stored  int
				Damaged int64
			}{stored, sp.Stats().DamagedRecords}
			want := struct {
				Stored  int
				Damaged int64
			}{tt.stored, tt.damaged}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			b, _ := os.ReadFile(sp.DamagedPath())
			if n := int64(strings.Count(string(b), `"uuid"`)); n != tt.damaged {
				t.Errorf("%d samples in %s, want %d:\n%s", n, sp.DamagedPath(), tt.damaged, b)
			}
		})
	}
}
