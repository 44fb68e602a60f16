package db_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// killBatch is batch i of the kill loop: 4 samples, one per GPU, at second i.
func killBatch(i int) db.Batch {
	base := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var b db.Batch
	for g := 0; g < 4; g++ {
		b.Samples = append(b.Samples, dcgm.Sample{UUID: fmt.Sprintf("GPU-kill-%d", g), Host: "kill-node",
			Time: base.Add(time.Duration(i) * time.Second), EnergyMJ: uint64(1000 * (i + 1)), PowerW: 200, UtilGPU: 50})
	}
	return b
}

// TestSpoolKillLoopChild is the collector side of TestSpoolSurvivesSIGKILLLoop,
// run as a child process: it writes batches from STRATA_KILL_FROM on through
// an Ingester (Postgres behind the parent's proxy, spool at
// STRATA_KILL_SPOOL) and prints "ack N" once batch N is stored or spooled.
// Run alone, it does nothing.
func TestSpoolKillLoopChild(t *testing.T) {
	if os.Getenv("STRATA_KILL_SPOOL") == "" {
		t.Skip("child process of TestSpoolSurvivesSIGKILLLoop")
	}
	from, _ := strconv.Atoi(os.Getenv("STRATA_KILL_FROM"))
	st, err := db.Open(context.Background(), db.Config{URL: os.Getenv("STRATA_KILL_URL")})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := db.OpenSpool(os.Getenv("STRATA_KILL_SPOOL"), 0)
	if err != nil {
		t.Fatal(err)
	}
	in := db.NewIngester(st, sp)
	in.Timeout = 300 * time.Millisecond
	for i := from; ; i++ {
		if _, err := in.Write(context.Background(), killBatch(i)); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		fmt.Printf("ack %d\n", i)
	}
}

// TestSpoolSurvivesSIGKILLLoop (fault suite, issue 13): the collector's
// ingestion is killed with SIGKILL at random moments, twenty times, while
// Postgres comes and goes (a proxy cut in front of it), so kills land in
// the middle of appends, drains and database writes. Afterwards every
// batch that was acknowledged is stored exactly once.
func TestSpoolSurvivesSIGKILLLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres, child processes)")
	}
	t.Parallel() // a database of its own (dbtest)
	url := dbtest.URL(t)
	dbtest.Open(t, url, true)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	proxy := slurmtest.NewProxy(t, target)
	childURL := strings.Replace(url, target, proxy.Addr(), 1)
	spool := t.TempDir() + "/spool.jsonl"
	rng := rand.New(rand.NewPCG(7, 11))
	acked, next := map[int]bool{}, 0
	up := true
	for round := 0; round < 20; round++ {
		if want := rng.IntN(2) == 0; want != up {
			if want {
				proxy.Up()
			} else {
				proxy.Down()
			}
			up = want
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSpoolKillLoopChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STRATA_KILL_SPOOL="+spool, "STRATA_KILL_URL="+childURL,
			"STRATA_KILL_FROM="+strconv.Itoa(next))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill comes at a random moment after the child's first
		// acknowledgement (not after its start: a loaded machine may take
		// longer than the whole window to start a test binary, and the
		// round would then exercise nothing).
		delay := time.Duration(rng.IntN(400)) * time.Millisecond
		first := make(chan struct{})
		go func() {
			select {
			case <-first:
				time.Sleep(delay)
			case <-time.After(time.Minute):
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}()
		sc := bufio.NewScanner(out)
		seen := false
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				i, _ := strconv.Atoi(n)
				acked[i] = true
				next = max(next, i+1)
				if !seen {
					seen = true
					close(first)
				}
			}
		}
		_ = cmd.Wait()
		next++ // a batch written but not acknowledged may be in the spool: never reuse its number
	}
	if !up {
		proxy.Up()
	}
	// A fresh start with Postgres reachable drains what is spooled.
	st := dbtest.Open(t, url, false)
	sp, err := db.OpenSpool(spool, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewIngester(st, sp).Flush(context.Background()); err != nil {
		t.Fatalf("final drain: %v", err)
	}
	if st := sp.Stats(); st.DamagedRecords > 0 {
		t.Logf("%d damaged records quarantined (torn appends of unacknowledged batches)", st.DamagedRecords)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	stored := map[int]int{}
	rows, err := conn.Query(context.Background(), `SELECT ts FROM gpu_sample WHERE gpu_uuid = 'GPU-kill-0'`)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for rows.Next() {
		var ts time.Time
		if err := rows.Scan(&ts); err != nil {
			t.Fatal(err)
		}
		stored[int(ts.Sub(base)/time.Second)]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acked) < 20 {
		t.Fatalf("only %d batches acknowledged over 20 rounds: the loop did not exercise the spool", len(acked))
	}
	lost, dup := 0, 0
	for i := range acked {
		if stored[i] == 0 {
			lost++
		}
	}
	for _, n := range stored {
		if n > 1 {
			dup++
		}
	}
	if lost > 0 || dup > 0 {
		t.Errorf("%d acknowledged batches lost, %d stored more than once (of %d acknowledged)", lost, dup, len(acked))
	}
	t.Logf("20 SIGKILLs: %d batches acknowledged, %d stored", len(acked), len(stored))
}
