package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// TestLockOneHolderAndTakeover: two stores (two daemons) on one database;
// only one holds the lock; the other gets it once the first releases it,
// or once the first one's session is killed (a daemon that died).
func TestLockOneHolderAndTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
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
