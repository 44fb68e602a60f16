package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
)

var testNow = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

// testSnapshot: 2 nodes × 4 GPUs, one running 4-GPU job, pending jobs:
// 10 hinted (1-4 GPUs, asks 1), 11 unhinted (2 GPUs), 12 rewrite=no.
func testSnapshot() *planner.Snapshot {
	return plannertest.Cluster("snap", testNow).Partition("gpu", true).
		Nodes("node", 2, 4, 16, 64000, "gpu", "").
		Running(1, 4, "node0001", testNow.Add(-10*time.Minute)).
		Pending(10, 1, "strata: model=resnet50 batch=64 epochs=1 samples=200000 gpus=1-4 arch=allreduce").
		Pending(11, 2, "").
		Pending(12, 1, "strata: model=resnet50 batch=64 epochs=1 samples=200000 gpus=1-4 rewrite=no").
		Build()
}

func testOptions() Options {
	return Options{Policy: "smd", Compare: []string{"fifo"}, Interval: time.Second, Cycles: 1,
		Guard:       testGuard(),
		StandbyPoll: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

// testGuard is the daemon's default guard with a hysteresis of 1.
func testGuard() decide.Options {
	g := decide.Defaults()
	g.PriorityHysteresis = 1
	return g
}

type testBed struct {
	cl *fakeCluster
	pg *fakePostgres
	m  *Metrics
}

func newTestDaemon(t *testing.T, bed testBed, o Options) *Daemon {
	t.Helper()
	deps := Deps{
		Connect: func(context.Context) (Cluster, error) { return bed.cl, nil },
		Now:     time.Now,
	}
	if bed.pg != nil {
		deps.Open = func(context.Context) (Store, error) { return bed.pg, nil }
	}
	d, err := New(zerolog.New(io.Discard), o, deps, bed.m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func runDaemon(t *testing.T, d *Daemon, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.Run(ctx); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func storedOutcomes(cs []db.Cycle) map[int64]decide.Outcome {
	out := map[int64]decide.Outcome{}
	for _, c := range cs {
		for _, d := range c.Decisions {
			out[d.JobID] = d.Outcome
		}
	}
	return out
}

func TestDaemonEnforceWritesOnlyHintedPendingJobs(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce = true
	runDaemon(t, newTestDaemon(t, bed, o), 5*time.Second)

	cs := bed.pg.Cycles()
	if len(cs) != 1 || !cs[0].Enforce || cs[0].ID != 1 {
		t.Fatalf("cycles = %+v, want one enforce cycle with ID 1", cs)
	}
	j10, j11, j12 := bed.cl.Job(10), bed.cl.Job(11), bed.cl.Job(12)
	var d10 db.CycleDecision
	for _, c := range cs[0].Decisions {
		if c.JobID == 10 {
			d10 = c
		}
	}
	if d10.Outcome != decide.Applied {
		t.Fatalf("job 10 decision %+v, want applied", d10)
	}
	if j10.GPUs() != d10.Workers || j10.Priority != d10.Priority {
		t.Errorf("hinted job 10 has %d GPUs priority %d; the decision was %d GPUs priority %d",
			j10.GPUs(), j10.Priority, d10.Workers, d10.Priority)
	}
	if ac, ok := decide.ParseAdminComment(j10.AdminComment); !ok || ac.Workers != d10.Workers || ac.Cycle != 1 {
		t.Errorf("job 10 admin comment %q does not match its decision / cycle 1", j10.AdminComment)
	}
	if j11.GPUs() != 2 {
		t.Errorf("unhinted job 11 resized to %d GPUs", j11.GPUs())
	}
	if j12.Priority != 1 || j12.AdminComment != "" || j12.GPUs() != 1 {
		t.Errorf("rewrite=no job 12 was changed: %+v", j12)
	}
	for _, w := range bed.cl.Writes() {
		if w.JobID == 1 || w.JobID == 12 {
			t.Errorf("wrote to job %d (running or opted out)", w.JobID)
		}
	}
	for _, c := range cs[0].Decisions {
		if c.JobID == 10 && (len(c.Alternatives) != 1 || c.Alternatives[0].Policy != "fifo") {
			t.Errorf("job 10 alternatives = %+v, want fifo's decision", c.Alternatives)
		}
	}
}

func TestDaemonSecondCycleWritesNothingNew(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce, o.Cycles, o.Interval = true, 3, time.Second
	d := newTestDaemon(t, bed, o)
	d.opts.Interval = time.Millisecond // below the flag minimum, tests only
	runDaemon(t, d, 5*time.Second)
	first := len(bed.cl.Writes())
	if first == 0 {
		t.Fatal("no writes in the first cycle")
	}
	cs := bed.pg.Cycles()
	if len(cs) != 3 {
		t.Fatalf("%d cycles stored, want 3", len(cs))
	}
	if n := len(cs[1].Decisions) + len(cs[2].Decisions); n != 0 {
		t.Errorf("cycles 2-3 stored %d decisions, want 0 (nothing changed): %+v", n, cs[1].Decisions)
	}
	if bed.cl.applyCalls != 3 || len(bed.cl.Writes()) != first {
		t.Errorf("writes grew from %d to %d over identical cycles", first, len(bed.cl.Writes()))
	}
}

func TestDaemonShadowWritesNothing(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	runDaemon(t, newTestDaemon(t, bed, testOptions()), 5*time.Second)
	if w := bed.cl.Writes(); len(w) != 0 {
		t.Fatalf("shadow mode wrote %d decisions", len(w))
	}
	cs := bed.pg.Cycles()
	if len(cs) != 1 || cs[0].Enforce {
		t.Fatalf("cycles = %+v, want one shadow cycle", cs)
	}
	if got := storedOutcomes(cs)[10]; got != decide.DryRun {
		t.Errorf("job 10 outcome %q, want dry-run (what enforce would send)", got)
	}
}

func TestDaemonStandbyTakesOverWhenLeaderStops(t *testing.T) {
	pg := newFakePostgres()
	cl := newFakeCluster(testSnapshot())
	o := testOptions()
	o.Enforce, o.Cycles = true, 1
	first := newTestDaemon(t, testBed{cl: cl, pg: pg, m: NewMetrics()}, o)
	// The first daemon takes the lock and keeps it while the second starts.
	if st := first.runCycle(context.Background()); st != cycleOK {
		t.Fatalf("first daemon: status %v", st)
	}
	m2 := NewMetrics()
	second := newTestDaemon(t, testBed{cl: cl, pg: pg, m: m2}, o)
	if st := second.runCycle(context.Background()); st != cycleStandby {
		t.Fatalf("second daemon: status %v, want standby", st)
	}
	if n := len(pg.Cycles()); n != 1 {
		t.Fatalf("standby daemon recorded a cycle: %d cycles", n)
	}
	first.close() // the leader stops: its lock goes
	runDaemon(t, second, 5*time.Second)
	if n := len(pg.Cycles()); n != 2 {
		t.Errorf("after takeover %d cycles, want 2", n)
	}
	if got := testGauge(t, m2.leader); got != 0 {
		t.Errorf("leader gauge after stop = %v, want 0 (released)", got)
	}
}

func TestDaemonBacksOffWhileSlurmIsDown(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	bed.cl.failSnapshots = 3
	runDaemon(t, newTestDaemon(t, bed, testOptions()), 5*time.Second)
	if n := len(bed.pg.Cycles()); n != 1 {
		t.Errorf("%d cycles stored, want 1 after slurmrestd came back", n)
	}
	if got := testCounter(t, bed.m.errors.WithLabelValues("snapshot")); got != 3 {
		t.Errorf("snapshot errors = %v, want 3", got)
	}
}

func TestDaemonEnforceWritesNothingWhilePostgresIsDown(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce = true
	d := newTestDaemon(t, bed, o)
	bed.pg.SetDown(true)
	snaps := 0
	bed.cl.onSnapshot = func() {
		if snaps++; snaps == 3 {
			bed.pg.SetDown(false)
		}
	}
	if st := d.runCycle(context.Background()); st != cycleFailed {
		t.Fatalf("status %v with Postgres down, want failed", st)
	}
	if bed.cl.applyCalls != 0 {
		t.Fatalf("Apply called %d times while the lock could not be proven", bed.cl.applyCalls)
	}
	runDaemon(t, d, 5*time.Second)
	if len(bed.cl.Writes()) == 0 || len(bed.pg.Cycles()) != 1 {
		t.Errorf("after Postgres came back: %d writes, %d cycles; want writes and 1 cycle", len(bed.cl.Writes()), len(bed.pg.Cycles()))
	}
}

func TestDaemonStopsWritingWhenTheLockIsLost(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce = true
	d := newTestDaemon(t, bed, o)
	if st := d.runCycle(context.Background()); st != cycleOK {
		t.Fatalf("first cycle: %v", st)
	}
	// Postgres restarts between cycles and another daemon takes the lock.
	bed.pg.SetDown(true)
	bed.pg.SetDown(false)
	other, ok, err := bed.pg.TryLock(context.Background(), "strata-run/test")
	if err != nil || !ok {
		t.Fatalf("other daemon could not take the lock: %v %v", ok, err)
	}
	defer other.Release(context.Background())
	calls := bed.cl.applyCalls
	if st := d.runCycle(context.Background()); st == cycleOK {
		t.Fatalf("cycle after losing the lock succeeded")
	}
	if bed.cl.applyCalls != calls {
		t.Errorf("Apply called after the lock was lost")
	}
	if st := d.runCycle(context.Background()); st != cycleStandby {
		t.Errorf("next cycle status %v, want standby", st)
	}
}

func TestDaemonShadowGoesOnWithoutPostgres(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	bed.pg.SetDown(true)
	d := newTestDaemon(t, bed, testOptions())
	runDaemon(t, d, 5*time.Second)
	if len(d.unsaved) != 1 {
		t.Fatalf("%d unsaved cycles, want 1 queued", len(d.unsaved))
	}
	bed.pg.SetDown(false)
	d.opts.Cycles = 1
	runDaemon(t, d, 5*time.Second)
	if n := len(bed.pg.Cycles()); n != 2 {
		t.Errorf("%d cycles stored after Postgres came back, want 2 (queued + new)", n)
	}
}

func TestDaemonStopsOnCancelAndReloadsOnSIGHUP(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Cycles, o.Interval = 0, time.Hour
	sig := make(chan os.Signal, 1)
	reloaded := make(chan struct{})
	d := newTestDaemon(t, bed, o)
	d.deps.Signals = sig
	d.deps.Reload = func() (Options, error) {
		n := o
		n.Enforce = true
		close(reloaded)
		return n, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	sig <- syscall.SIGHUP
	<-reloaded
	sig <- syscall.SIGUSR1 // run a cycle now, in enforce mode
	deadline := time.Now().Add(5 * time.Second)
	for len(bed.pg.Cycles()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run after cancel: %v, want nil (exit 0)", err)
	}
	cs := bed.pg.Cycles()
	if diff := cmp.Diff([]bool{false, true}, []bool{cs[0].Enforce, len(cs) > 1 && cs[1].Enforce}); diff != "" {
		t.Errorf("enforce per cycle (-want +got):\n%s", diff)
	}
}

func TestDaemonPrunesOldCyclesAndReportsIngestionLag(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	old := db.Cycle{ID: 99, Cluster: "test", StartedAt: time.Now().Add(-48 * time.Hour)}
	if err := bed.pg.SaveCycle(context.Background(), &old); err != nil {
		t.Fatal(err)
	}
	bed.pg.latestSample = time.Now().Add(-90 * time.Second)
	o := testOptions()
	o.AuditRetention = 24 * time.Hour
	runDaemon(t, newTestDaemon(t, bed, o), 5*time.Second)
	cs := bed.pg.Cycles()
	if len(cs) != 1 || cs[0].ID == 99 {
		t.Errorf("cycles after pruning: %+v, want only the new one", cs)
	}
	if lag := testGauge(t, bed.m.ingestLag); lag < 89 || lag > 120 {
		t.Errorf("ingestion lag gauge = %v s, want about 90", lag)
	}
}

// TestDaemonSIGTERMFinishesAnApplyUnderWay: a stop during Apply lets the
// cycle's writes finish and records them; a stop before Apply writes
// nothing and records the decisions as not sent.
func TestDaemonSIGTERMFinishesAnApplyUnderWay(t *testing.T) {
	for _, during := range []bool{true, false} {
		bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
		o := testOptions()
		o.Enforce, o.Cycles = true, 0
		d := newTestDaemon(t, bed, o)
		ctx, cancel := context.WithCancel(context.Background())
		if during {
			bed.cl.onApply = cancel
		} else {
			bed.cl.onSnapshot = cancel
		}
		if err := d.Run(ctx); err != nil {
			t.Fatalf("run: %v", err)
		}
		got := storedOutcomes(bed.pg.Cycles())[10]
		writes := len(bed.cl.Writes())
		switch {
		case during && (got != decide.Applied || writes == 0):
			t.Errorf("stop during Apply: job 10 outcome %q, %d writes; want applied and written", got, writes)
		case !during && (writes != 0 || got != "" && got != decide.NotSent):
			t.Errorf("stop before Apply: job 10 outcome %q, %d writes; want nothing written", got, writes)
		}
	}
}

// TestDaemonPerJobCapCountsAppliedRewrites: a job is rewritten at most
// MaxPerJob times over many cycles, even when the plan keeps changing.
func TestDaemonPerJobCapCountsAppliedRewrites(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce, o.Cycles, o.Guard.MaxPerJob = true, 1, 2
	d := newTestDaemon(t, bed, o)
	for i := 0; i < 4; i++ {
		// Someone (another tool, an admin) resets job 10's GPU request
		// between cycles, so the plan resizes it again each time.
		bed.cl.mu.Lock()
		j := bed.cl.job(10)
		j.GPUsPerNode, j.GPUsPerJob, j.Nodes = 0, 1, 1
		bed.cl.mu.Unlock()
		runDaemon(t, d, 5*time.Second)
	}
	n := 0
	for _, w := range bed.cl.Writes() {
		if w.JobID == 10 && w.GPUsPerNode > 0 {
			n++
		}
	}
	if n != 2 {
		t.Errorf("job 10 resized %d times over 4 cycles, want the cap of 2", n)
	}
	var last db.CycleDecision
	for _, c := range bed.pg.Cycles() {
		for _, x := range c.Decisions {
			if x.JobID == 10 {
				last = x
			}
		}
	}
	// Once capped, the plan keeps the job's size (and says why).
	if last.Workers != 1 || !slices.Contains(last.Reasons, planner.ReasonSizeLocked) {
		t.Errorf("last stored decision for job 10: %d workers, reasons %v; want its request (1) and size_locked", last.Workers, last.Reasons)
	}
}

func TestDaemonShadowWithoutDatabase(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), m: NewMetrics()}
	o := testOptions()
	o.Cycles = 2
	d := newTestDaemon(t, bed, o)
	d.opts.Interval = time.Millisecond
	runDaemon(t, d, 5*time.Second)
	if got := testCounter(t, bed.m.cycles.WithLabelValues("ok")); got != 2 || len(bed.cl.Writes()) != 0 {
		t.Errorf("%v ok cycles, %d writes; want 2 cycles and no write", got, len(bed.cl.Writes()))
	}
	o.Enforce = true
	if _, err := New(zerolog.New(io.Discard), o, d.deps, NewMetrics()); err == nil {
		t.Error("enforce mode without a database was accepted")
	}
}

// TestDaemonUsesPlannerSettings: the configuration's [planner] settings
// reach the policy (a cap on the hint's gpus= range) and are stored with the
// cycle for strata explain.
func TestDaemonUsesPlannerSettings(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Planner.Limits = []planner.Limit{{MaxGPUs: 1}}
	o.Settings = map[string]string{"planner.limits": "[{max-gpus=1}]"}
	runDaemon(t, newTestDaemon(t, bed, o), 5*time.Second)
	cs := bed.pg.Cycles()
	if len(cs) != 1 {
		t.Fatalf("%d cycles stored, want 1", len(cs))
	}
	if diff := cmp.Diff(o.Settings, cs[0].Inputs.Settings); diff != "" {
		t.Errorf("stored settings (-want +got):\n%s", diff)
	}
	for _, d := range cs[0].Decisions {
		if d.JobID != 10 {
			continue
		}
		if d.Workers != 1 || !slices.Contains(d.Reasons, planner.ReasonCapped) {
			t.Errorf("job 10: %d workers, reasons %v; want 1 worker, capped", d.Workers, d.Reasons)
		}
		return
	}
	t.Error("no stored decision for job 10")
}

// TestDaemonFencesWritesWithTheLock: the lock is lost right after the first
// write of a cycle; the daemon sends nothing more in that cycle, records
// the rest as not sent, and gives the lock up (issue 13.10).
func TestDaemonFencesWritesWithTheLock(t *testing.T) {
	snap := plannertest.Cluster("snap", testNow).Partition("gpu", true).
		Nodes("node", 4, 4, 16, 64000, "gpu", "").
		Pending(10, 1, "strata: model=resnet50 batch=64 epochs=1 samples=200000 gpus=1-4").
		Pending(11, 1, "strata: model=resnet50 batch=64 epochs=1 samples=300000 gpus=1-4").
		Pending(12, 1, "strata: model=resnet50 batch=64 epochs=1 samples=400000 gpus=1-4").
		Build()
	bed := testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}
	bed.cl.onWrite = func() {
		bed.pg.mu.Lock()
		bed.pg.session++ // Postgres restarted: the session holding the lock is gone
		bed.pg.mu.Unlock()
	}
	o := testOptions()
	o.Enforce = true
	d := newTestDaemon(t, bed, o)
	res, err := d.RunOnce(context.Background())
	if err == nil {
		t.Log("cycle ended without error")
	}
	if n := len(bed.cl.Writes()); n != 1 {
		t.Fatalf("%d writes, want 1: the lock was lost after the first", n)
	}
	notSent := 0
	for _, r := range res.Report.Results {
		if r.Outcome == decide.NotSent {
			notSent++
		}
	}
	if notSent < 1 {
		t.Errorf("results %+v: want the writes after the loss reported not-sent", res.Report.Results)
	}
	if d.lock != nil {
		t.Error("the daemon still thinks it holds the lock")
	}
}

// TestDaemonBoundsDatabaseCalls: a black-holed Postgres (lock checks never
// answer) fails the cycle within DBTimeout instead of blocking it.
func TestDaemonBoundsDatabaseCalls(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce, o.DBTimeout = true, 100*time.Millisecond
	d := newTestDaemon(t, bed, o)
	if _, err := d.RunOnce(context.Background()); err != nil { // takes the lock
		t.Fatal(err)
	}
	bed.pg.mu.Lock()
	bed.pg.blackHole = true
	bed.pg.mu.Unlock()
	writes := len(bed.cl.Writes())
	done := make(chan error, 1)
	go func() {
		res, err := d.RunOnce(context.Background())
		if err == nil && !res.Standby {
			err = nil
			done <- errors.New("no error and not standing by")
			return
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a cycle whose lock check never answered: %v", err)
		}
		if n := len(bed.cl.Writes()); n != writes {
			t.Errorf("%d writes without a confirmed lock", n-writes)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cycle is still blocked on the black-holed database after 5 s (DBTimeout 100 ms)")
	}
}

// TestDaemonMarksJobsThatIgnoreTheirSignal: a job signalled 10 minutes ago
// that still runs the same run is marked non-cooperative; one that
// restarted since, and one signalled a minute ago, are not.
func TestDaemonMarksJobsThatIgnoreTheirSignal(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	snap := plannertest.Cluster("snap", now).Partition("gpu", true).
		Nodes("node", 2, 4, 16, 64000, "gpu", "").
		Running(1, 1, "node0001", now.Add(-time.Hour)).
		Running(2, 1, "node0001", now.Add(-2*time.Minute)).
		Running(3, 1, "node0002", now.Add(-time.Hour)).
		Build()
	sig := func(at time.Time) string { return decide.Written{Workers: 1, Cycle: 1, Signalled: at}.String() }
	snap.Jobs[0].AdminComment = sig(now.Add(-10 * time.Minute)) // ignored it
	snap.Jobs[1].AdminComment = sig(now.Add(-10 * time.Minute)) // requeued and restarted since
	snap.Jobs[2].AdminComment = sig(now.Add(-time.Minute))      // still within the timeout
	bed := testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce = true
	if _, err := newTestDaemon(t, bed, o).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := []bool{bed.cl.Job(1).NonCooperative, bed.cl.Job(2).NonCooperative, bed.cl.Job(3).NonCooperative}
	if diff := cmp.Diff([]bool{true, false, false}, got); diff != "" {
		t.Errorf("non-cooperative marks (-want +got):\n%s", diff)
	}
	if !strings.Contains(bed.cl.Job(1).AdminComment, "noncoop=1") {
		t.Errorf("admin comment %q lacks noncoop=1", bed.cl.Job(1).AdminComment)
	}
	// The mark is a write like any other (issue 33.3): through Apply,
	// audited with its reason.
	var marked []int64
	for _, c := range bed.pg.cycles {
		for _, d := range c.Decisions {
			if d.Action == planner.ActionMarkNonCooperative && d.Outcome == decide.Applied && slices.Contains(d.Reasons, planner.ReasonNonCooperative) {
				marked = append(marked, d.JobID)
			}
		}
	}
	if diff := cmp.Diff([]int64{1}, marked); diff != "" {
		t.Errorf("audited marks (-want +got):\n%s", diff)
	}
}

// TestDaemonPreemptsOnlyOptedInJobs (issue 14): tiresias demotes two long
// running jobs; the one that opted in (preempt=yes, requeueable) is sent its
// signal so that a waiting job can start, the other is left alone; a job
// preempted twice today is locked against a third time.
func TestDaemonPreemptsOnlyOptedInJobs(t *testing.T) {
	long := "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=4"
	snap := plannertest.Cluster("snap", testNow).Partition("gpu", true).
		Nodes("node", 2, 4, 16, 64000, "gpu", "").
		Running(1, 4, "node0001", testNow.Add(-2*time.Hour), plannertest.Preemptible(long+" preempt=yes"),
			plannertest.Attained(4*2*3600)).
		Running(2, 4, "node0002", testNow.Add(-2*time.Hour), plannertest.Attained(4*2*3600)).
		Pending(10, 4, "strata: model=resnet50 batch=64 epochs=1 samples=50000 gpus=4").
		Build()
	snap.Jobs[1].Comment = long // not opted in
	bed := testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce, o.Policy = true, "tiresias"
	o.Planner.TiresiasThreshold = 3600 // one GPU-hour: both running jobs are demoted
	d := newTestDaemon(t, bed, o)
	d.deps.Now = func() time.Time { return testNow }
	res, err := d.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]decide.Outcome{}
	for _, r := range res.Report.Results {
		got[r.JobID] = r.Outcome
	}
	if got[1] != decide.Signalled {
		t.Errorf("opted-in job 1: %q, want signalled (results %+v, verdicts %+v)", got[1], res.Report.Results, res.Verdicts)
	}
	if o, sent := got[2]; sent && o == decide.Signalled {
		t.Error("job 2 did not opt in but was signalled")
	}
	// Twice preempted today: locked, the planner proposes nothing for it.
	s := *snap
	s.Jobs = append([]planner.Job(nil), snap.Jobs...)
	decide.Annotate(&s, decide.History{Preempts: map[int64]int{1: 2}}, testOptions().Guard)
	if s.Jobs[0].PreemptsToday != 2 || s.Jobs[1].PreemptsToday != 0 {
		t.Errorf("PreemptsToday = %d, %d; want 2, 0", s.Jobs[0].PreemptsToday, s.Jobs[1].PreemptsToday)
	}
}

// TestDaemonPredictsFromHistory (issue 16.2): an unhinted job is timed from
// the completed jobs of its user with a similar name (Helios' rule), read
// from Postgres, instead of its time limit.
func TestDaemonPredictsFromHistory(t *testing.T) {
	snap := plannertest.Cluster("snap", testNow).Partition("gpu", true).
		Nodes("node", 1, 4, 16, 64000, "gpu", "").
		Pending(10, 2, "", plannertest.TimeLimit(24*time.Hour)).
		Build()
	snap.Jobs[0].Name, snap.Jobs[0].User = "bert-finetune-7", "alice"
	pg := newFakePostgres()
	for i, d := range []time.Duration{2 * time.Hour, 2 * time.Hour, 4 * time.Hour} {
		end := testNow.Add(-time.Duration(i+1) * 24 * time.Hour)
		pg.finished = append(pg.finished, db.FinishedJob{User: "alice", Name: fmt.Sprintf("bert-finetune-%d", i),
			GPUs: 2, Start: end.Add(-d), End: end})
	}
	bed := testBed{cl: newFakeCluster(snap), pg: pg, m: NewMetrics()}
	d := newTestDaemon(t, bed, testOptions())
	d.deps.Now = func() time.Time { return testNow }
	res, err := d.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dc := res.Plan.Decisions[0]
	if !slices.Contains(dc.Reasons, planner.ReasonPredicted) {
		t.Errorf("reasons %v: want %s", dc.Reasons, planner.ReasonPredicted)
	}
	if got := dc.PredictedEnd.Sub(dc.PredictedStart); got < 2*time.Hour || got > 4*time.Hour {
		t.Errorf("predicted run time %v, want the history's 2-4 h (not the 24 h limit)", got)
	}
}
