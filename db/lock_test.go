package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// TestLockOneHolderAndTakeover: two stores (two daemons) on one database;
// only one holds the lock; the other gets it once the first releases it,
// or once the first one's session is killed (a daemon that died).
func TestLockOneHolderAndTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	url := dbtest.URL(t)
	a := dbtest.Open(t, url, true)
	b := dbtest.Open(t, url, false)
	ctx := context.Background()

	la, ok, err := a.TryLock(ctx, "cluster-x")
	if err != nil || !ok {
		t.Fatalf("first TryLock: %v %v", ok, err)
	}
	if _, ok, err := b.TryLock(ctx, "cluster-x"); err != nil || ok {
		t.Fatalf("second TryLock while held: ok=%v err=%v, want false", ok, err)
	}
	ly, ok, err := b.TryLock(ctx, "cluster-y")
	if err != nil || !ok {
		t.Fatalf("another cluster's lock: ok=%v err=%v, want true", ok, err)
	}
	defer ly.Release(ctx) // before the stores close (a held lock holds a connection)
	if err := la.Check(ctx); err != nil {
		t.Fatalf("Check while held: %v", err)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb, ok, err := b.TryLock(ctx, "cluster-x")
	if err != nil || !ok {
		t.Fatalf("TryLock after release: %v %v", ok, err)
	}

	// The holder's session dies (as when its process is killed): Postgres
	// frees the lock, the holder's Check reports it lost, the other takes it.
	killSessionsHolding(t, url, "cluster-x")
	if err := lb.Check(ctx); !errors.Is(err, db.ErrLockLost) {
		t.Fatalf("Check after the session died: %v, want ErrLockLost", err)
	}
	// pg_terminate_backend only signals the backend: the lock is freed when
	// that backend has exited, a moment later. A standby polls; so does this.
	var la2 *db.Lock
	deadline := time.Now().Add(10 * time.Second)
	for {
		la2, ok, err = a.TryLock(ctx, "cluster-x")
		if err != nil || ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || !ok {
		t.Fatalf("takeover after the holder died: ok=%v err=%v", ok, err)
	}
	defer la2.Release(ctx)
	if err := lb.Release(ctx); err != nil {
		t.Errorf("Release of a lost lock: %v, want nil", err)
	}
}

func killSessionsHolding(t *testing.T, url, name string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	err = c.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1`, db.LockKey(name)).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminate the holder's session: %d sessions, %v", n, err)
	}
}

// TestLockCheckOnABlackHoledPostgres: the network to Postgres drops every
// packet. Check must give up within its context's deadline and report the
// lock lost (issue 13.10: it blocked for more than 25 s).
func TestLockCheckOnABlackHoledPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	url := dbtest.URL(t)
	dbtest.Open(t, url, true)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := slurmtest.NewProxy(t, fmt.Sprintf("%s:%d", cfg.Host, cfg.Port))
	st, err := db.Open(context.Background(), db.Config{URL: strings.Replace(url,
		fmt.Sprintf("%s:%d", cfg.Host, cfg.Port), proxy.Addr(), 1), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	defer proxy.Down() // first: cut what the black hole keeps waiting
	l, ok, err := st.TryLock(context.Background(), "black-hole")
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	proxy.Stall()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err = l.Check(ctx)
	if !errors.Is(err, db.ErrLockLost) {
		t.Errorf("Check on a black-holed connection: %v, want ErrLockLost", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Check took %v with a 300 ms deadline", d)
	}
	// The lock is dropped: its connection is closed, and Postgres frees the
	// lock once that close reaches it (pgx gives up a stalled connection
	// within 15 s; across a network that drops packets, when TCP keepalive
	// gives up), so a standby can take over then.
	if err := l.Check(context.Background()); !errors.Is(err, db.ErrLockLost) {
		t.Errorf("a dropped lock checks %v, want ErrLockLost", err)
	}
}
