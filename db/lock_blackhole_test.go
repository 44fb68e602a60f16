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
)

// takeoverBound is issue 34.2's target: a standby holds the writer lock
// within a minute of the leader's network going silent.
const takeoverBound = 60 * time.Second

// The leader's network to Postgres goes silent (a proxy that stops
// forwarding: no reset, no FIN). Before issue 34.2 Postgres kept the
// leader's session and advisory lock until its TCP keepalive gave up (two
// hours): the standby waited. Now the lock's session ends after
// db.LockLease idle and the standby takes the lock within a minute; the
// leader, checking the lock as it does before every write, has seen it
// lost before the standby took it, and when its network comes back the
// lock is still lost to it (it writes nothing).
func TestLockBlackHoledLeaderHandsOver(t *testing.T) {
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
	target := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	proxy := dbtest.NewBlackHole(t, target)
	ctx := context.Background()
	leader, err := db.Open(ctx, db.Config{URL: strings.Replace(url, target, proxy.Addr(), 1), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	standby, err := db.Open(ctx, db.Config{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	const name = "black-holed-leader"
	lock, ok, err := leader.TryLock(ctx, name)
	if err != nil || !ok {
		t.Fatalf("leader TryLock: %v %v", ok, err)
	}
	if _, ok, err := standby.TryLock(ctx, name); err != nil || ok {
		t.Fatalf("standby TryLock while the leader holds it: %v %v, want false", ok, err)
	}

	// The leader checks its lock every second (its heartbeat, and the
	// fence before each write) until a check fails; lastOK is when the
	// last successful check returned: the last moment it could write.
	type leaderEnd struct{ lastOK, lost time.Time }
	leaderDone := make(chan leaderEnd, 1)
	stop := make(chan struct{})
	go func() {
		var end leaderEnd
		defer func() { leaderDone <- end }()
		for {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := lock.Check(cctx)
			cancel()
			if err != nil {
				end.lost = time.Now()
				return
			}
			end.lastOK = time.Now()
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	blackHoled := time.Now()
	proxy.Silence()

	var taken time.Time
	for taken.IsZero() && time.Since(blackHoled) < takeoverBound+10*time.Second {
		l, ok, err := standby.TryLock(ctx, name)
		switch {
		case err != nil:
			t.Fatalf("standby TryLock: %v", err)
		case ok:
			taken = time.Now()
			defer l.Release(ctx)
		default:
			time.Sleep(time.Second)
		}
	}
	close(stop)
	end := <-leaderDone
	if taken.IsZero() {
		t.Fatalf("the standby did not take the lock within %v of the leader's network going silent", takeoverBound+10*time.Second)
	}
	t.Logf("standby took the lock %.1f s after the black hole; the leader saw it lost after %.1f s",
		taken.Sub(blackHoled).Seconds(), end.lost.Sub(blackHoled).Seconds())
	if d := taken.Sub(blackHoled); d > takeoverBound {
		t.Errorf("standby took the lock %v after the black hole, want within %v", d, takeoverBound)
	}
	if end.lost.IsZero() || !end.lost.Before(taken) || !end.lastOK.Before(taken) {
		t.Errorf("leader: last check held at %v, lost at %v; standby took over at %v: the leader must stop first",
			end.lastOK, end.lost, taken)
	}
	// The leader's network comes back: the lock is still lost to it.
	proxy.Restore()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := lock.Check(cctx); !errors.Is(err, db.ErrLockLost) {
		t.Errorf("the old leader's lock after its network came back: %v, want ErrLockLost", err)
	}
	if _, ok, err := leader.TryLock(cctx, name); err != nil || ok {
		t.Errorf("the old leader's TryLock while the standby holds it: %v %v, want false", ok, err)
	}
}
