package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// TestE2EBlackHoledLeaderHandsOver runs two enforcing daemons (the real
// binary, the test cluster, one database); the leader reaches Postgres
// through a proxy that goes silent (no reset: a network that drops every
// packet). Issue 34.2: Postgres kept the silent leader's session, and the
// writer lock, for two hours. Now: the leader keeps its lock while it waits
// longer than the lock's lease (db.LockLease) between cycles; once its
// network is silent, it gives the lock up before the standby takes it, and
// the standby takes it within a minute; when the network comes back the old
// leader stands by.
func TestE2EBlackHoledLeaderHandsOver(t *testing.T) {
	b := newE2EBed(t)
	bin := buildStrata(t)
	cfg, err := pgx.ParseConfig(b.url)
	if err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	hole := dbtest.NewBlackHole(t, target)
	args := []string{"run", "--enforce", "--interval", "1h", "--standby-poll", "1s",
		"--only-job-name-prefix", b.prefix, "--metrics-listen", ""}
	leader := startDaemon(t, bin, append(args, "--database-url", strings.Replace(b.url, target, hole.Addr(), 1))...)
	leader.waitLog(t, "writer lock taken", 30*time.Second)
	standby := startDaemon(t, bin, args...)
	standby.waitLog(t, "standing by", 30*time.Second)

	// Between cycles (an hour apart) the leader keeps its lease.
	time.Sleep(db.LockLease + 5*time.Second)
	if strings.Contains(standby.Logs(), "writer lock taken") {
		t.Fatalf("the standby took the lock from a leader that is well:\nleader:\n%s\nstandby:\n%s", leader.Logs(), standby.Logs())
	}

	hole.Silence()
	silenced := time.Now()
	var lost, taken time.Time
	for taken.IsZero() && time.Since(silenced) < 90*time.Second {
		if lost.IsZero() && strings.Contains(leader.Logs(), "writer lock lost") {
			lost = time.Now()
		}
		if strings.Contains(standby.Logs(), "writer lock taken") {
			taken = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	if taken.IsZero() {
		t.Fatalf("the standby did not take the lock within 90 s of the leader's network going silent; standby:\n%s", standby.Logs())
	}
	t.Logf("standby took the lock %.1f s after the leader's network went silent; the leader gave it up after %.1f s",
		taken.Sub(silenced).Seconds(), lost.Sub(silenced).Seconds())
	if d := taken.Sub(silenced); d > time.Minute {
		t.Errorf("takeover %v after the black hole, want within a minute", d)
	}
	if lost.IsZero() || !lost.Before(taken) {
		t.Errorf("the leader gave the lock up at %v, the standby took it at %v: the leader must stop first; leader:\n%s",
			lost, taken, leader.Logs())
	}

	// The network comes back; asked to plan, the old leader stands by.
	hole.Restore()
	if err := leader.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	leader.waitLog(t, "standing by", 60*time.Second)
	if n := strings.Count(leader.Logs(), "writer lock taken"); n != 1 {
		t.Errorf("the old leader took the lock %d times, want once; logs:\n%s", n, leader.Logs())
	}
	for _, p := range []*daemonProc{standby, leader} {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Errorf("daemon after SIGTERM: %v; logs:\n%s", err, p.Logs())
		}
	}
}
