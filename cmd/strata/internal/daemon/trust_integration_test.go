package daemon

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// TestIntegrationLiarIsCorrected (issue 22.5) runs the daemon's cycle
// against the test cluster and a real Postgres: bob's first job claims one
// ResNet-50 iteration (milliseconds) and sleeps 4 s, 100-fold and more
// past its claim. The cycle before it started recorded the claim; the next
// cycle records the run's end from slurmctld's list of ended jobs (no
// collector runs, nothing is written by hand: issue 33) and reads bob's
// record: his next job with the same claim is distrusted (timed by its
// 60-minute limit, said in the decision, with the claim kept as
// Decision.Claimed) and ranks behind alice's honest job of a few minutes,
// which it ranked ahead of without the record.
func TestIntegrationLiarIsCorrected(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster and Postgres")
	}
	b := newTrustBed(t, "trust")
	cl, st, sub, newDaemon, decision, lie, honest := b.cl, b.st, b.sub, b.newDaemon, b.decision, trustLie, trustHonest
	logs := &b.logs

	// The claim is planned (and recorded) before the job starts.
	first := sub("bob", lie, "10", "now+3", "4")
	d1 := newDaemon()
	res, err := d1.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	claim := decision(res.Plan, first)
	if run := claim.PredictedEnd.Sub(claim.PredictedStart); claim.PredictedStart.IsZero() || run > time.Second {
		t.Fatalf("first job planned %v–%v: want a recorded prediction under a second", claim.PredictedStart, claim.PredictedEnd)
	}
	d1.Close() // its writer lock goes: the next daemon leads
	if st := cl.WaitState(t, first, "COMPLETED", 40*time.Second); st != "COMPLETED" {
		t.Fatalf("first job is %s, want COMPLETED", st)
	}
	run, err := slurmDuration(cl.ShowJob(t, first)["RunTime"])
	if err != nil || run < 3*time.Second {
		t.Fatalf("first job ran %v (%v): want its 4 s sleep", run, err)
	}
	// Nothing is stored by hand and no collector runs: the next cycle
	// records the run's end from slurmctld's list of ended jobs.

	// bob lies again; alice is honest. Both wait (begin in an hour) and
	// each needs every GPU of the cluster, so one goes first.
	all := []string{"-N", "2", "--gres=gpu:4"}
	again := sub("bob", lie, "60", "now+3600", "4", all...)
	fair := sub("alice", honest, "30", "now+3600", "60", all...)
	d2 := newDaemon()
	defer d2.Close()
	res, err = d2.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	liar, ok := decision(res.Plan, again), decision(res.Plan, fair)
	if !slices.Contains(liar.Reasons, planner.ReasonClaimDistrusted) || !strings.Contains(liar.Detail, "not trusted") {
		t.Errorf("bob's next job decided %v %q: want %s; log:\n%s", liar.Reasons, liar.Detail, planner.ReasonClaimDistrusted, logs.String())
	}
	if run := liar.PredictedEnd.Sub(liar.PredictedStart); run < 59*time.Minute {
		t.Errorf("bob's next job planned for %v: want its 60-minute limit", run)
	}
	if liar.Claimed <= 0 || liar.Claimed > time.Second {
		t.Errorf("bob's next job carries claimed %v: want the uncorrected prediction (ms)", liar.Claimed)
	}
	if liar.Rank <= ok.Rank {
		t.Errorf("bob's distrusted job ranks %d (%v), ahead of alice's honest job (%d, %v %v)", liar.Rank,
			liar.PredictedEnd.Sub(liar.PredictedStart), ok.Rank, ok.PredictedEnd.Sub(ok.PredictedStart), ok.Reasons)
	}
	outs, err := st.TrustOutcomes(context.Background(), res.Snapshot.Cluster, time.Now().Add(-time.Hour), 100)
	if err != nil || !slices.ContainsFunc(outs, func(o trust.Outcome) bool { return o.JobID == first && o.User == "bob" }) {
		t.Errorf("outcomes %+v (%v): want bob's first job", outs, err)
	}
}

// TestIntegrationRunningLieDistrusts (issue 30: a new user's first large
// lie) runs the daemon's cycle against the test cluster and a real
// Postgres: bob, with no record, claims one ResNet-50 iteration
// (milliseconds) for a job that sleeps a minute. Once it has run 10× its
// claim — while it still runs — the next cycle distrusts bob: his next job
// with the same claim is timed by its limit, says the lie still runs, and
// ranks behind alice's honest job.
func TestIntegrationRunningLieDistrusts(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster and Postgres")
	}
	b := newTrustBed(t, "trustrun")
	cl, sub, newDaemon, decision, lie, honest := b.cl, b.sub, b.newDaemon, b.decision, trustLie, trustHonest
	logs := &b.logs

	// The claim is planned (and recorded) before the job starts.
	first := sub("bob", lie, "10", "now+3", "120")
	d1 := newDaemon()
	if _, err := d1.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	d1.Close()
	if st := cl.WaitState(t, first, "RUNNING", 40*time.Second); st != "RUNNING" {
		t.Fatalf("first job is %s, want RUNNING", st)
	}
	time.Sleep(2 * time.Second) // hundreds of times its millisecond claim, far from its end

	all := []string{"-N", "2", "--gres=gpu:4"}
	again := sub("bob", lie, "60", "now+3600", "4", all...)
	fair := sub("alice", honest, "30", "now+3600", "60", all...)
	d2 := newDaemon()
	defer d2.Close()
	res, err := d2.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := cl.ShowJob(t, first)["JobState"]; got != "RUNNING" {
		t.Fatalf("the lie is %s at the second cycle: the test needs it running", got)
	}
	liar, ok := decision(res.Plan, again), decision(res.Plan, fair)
	if !slices.Contains(liar.Reasons, planner.ReasonClaimDistrusted) || !strings.Contains(liar.Detail, "still running") {
		t.Errorf("bob's next job decided %v %q: want %s, saying the lie still runs; log:\n%s", liar.Reasons, liar.Detail,
			planner.ReasonClaimDistrusted, logs.String())
	}
	if liar.Rank <= ok.Rank {
		t.Errorf("bob's distrusted job ranks %d, ahead of alice's honest job (%d)", liar.Rank, ok.Rank)
	}
}

// The hints of the trust tests: one ResNet-50 iteration (milliseconds, a
// lie for any job that sleeps) and an honest few minutes.
const (
	trustLie    = "--comment=strata: model=resnet50 batch=1 iters=1"
	trustHonest = "--comment=strata: model=resnet50 batch=64 iters=300"
)

// trustBed is a trust test's cluster, database and daemons: jobs named
// after the test (the daemons' scope), submitted as a user.
type trustBed struct {
	t    *testing.T
	cl   *slurmtest.Cluster
	st   *db.Store
	name string
	logs strings.Builder
}

func newTrustBed(t *testing.T, prefix string) *trustBed {
	return &trustBed{t: t, cl: slurmtest.Connect(t), st: dbtest.Open(t, dbtest.URL(t), true),
		name: fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano()%100000)}
}

// sub submits a job of user with hint and limit (minutes), not before
// begin, sleeping run seconds, on size (default one GPU).
func (b *trustBed) sub(user, hint, limit, begin, run string, size ...string) int64 {
	if size == nil {
		size = []string{"--gres=gpu:1"}
	}
	return b.cl.SbatchAs(b.t, user, append(size, "-J", b.name, "--chdir=/tmp", "-o", "/dev/null", "-t", limit,
		"--begin="+begin, hint, "--wrap=sleep "+run)...)
}

// newDaemon is a daemon over the bed's jobs, logging into b.logs.
func (b *trustBed) newDaemon() *Daemon {
	log := zerolog.New(&b.logs)
	o := testOptions()
	o.Compare, o.Scope.NamePrefix = nil, b.name
	d, err := New(log, o, Deps{
		Connect: func(ctx context.Context) (Cluster, error) { return slurm.New(ctx, b.cl.Config, log) },
		Open:    func(context.Context) (Store, error) { return keptStore{StoreOf(b.st)}, nil }}, NewMetrics())
	if err != nil {
		b.t.Fatal(err)
	}
	return d
}

// decision is the plan's decision for job id.
func (b *trustBed) decision(p planner.Plan, id int64) planner.Decision {
	for _, d := range p.Decisions {
		if d.JobID == id {
			return d
		}
	}
	b.t.Fatalf("no decision for job %d in %+v", id, p.Decisions)
	return planner.Decision{}
}

// keptStore is the test's store, which the daemons share: closing a
// daemon leaves it open (dbtest closes it).
type keptStore struct{ Store }

func (keptStore) Close() {}

// slurmDuration reads scontrol's [D-]HH:MM:SS.
func slurmDuration(s string) (time.Duration, error) {
	var d, h, m, sec int
	if strings.Contains(s, "-") {
		if _, err := fmt.Sscanf(s, "%d-%d:%d:%d", &d, &h, &m, &sec); err != nil {
			return 0, fmt.Errorf("parse %q: %w", s, err)
		}
	} else if _, err := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec); err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, err)
	}
	return time.Duration(((d*24+h)*60+m)*60+sec) * time.Second, nil
}

// TestIntegrationHonestJobKeepsItsLimit (issue 30) on the test cluster and
// a real Postgres, with claim binding switched on: alice's honest job,
// whose hint predicts minutes and whose --time is two hours, keeps her
// limit after an enforcing cycle, because she has no record of
// understated claims. Before, binding lowered it to 30 minutes on the
// model's word, and a run 3× its hint's prediction was killed there.
func TestIntegrationHonestJobKeepsItsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster and Postgres")
	}
	cl := slurmtest.Connect(t)
	st := dbtest.Open(t, dbtest.URL(t), true)
	name := fmt.Sprintf("honest-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)
	job := cl.SbatchAs(t, "alice", "--gres=gpu:1", "-J", name, "--chdir=/tmp", "-o", "/dev/null", "-t", "02:00:00",
		"--begin=now+3600", "--comment=strata: model=resnet50 batch=64 iters=300", "--wrap=sleep 1")
	t.Cleanup(func() { _, _ = cl.Exec("scancel", fmt.Sprint(job)) })
	o := testOptions()
	o.Compare, o.Scope.NamePrefix, o.Enforce = nil, name, true
	o.Planner.BindClaims, o.Planner.ClaimMargin = true, 2
	log := zerolog.Nop()
	d, err := New(log, o, Deps{
		Connect: func(ctx context.Context) (Cluster, error) { return slurm.New(ctx, cl.Config, log) },
		Open:    func(context.Context) (Store, error) { return keptStore{StoreOf(st)}, nil }}, NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	res, err := d.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, dc := range res.Plan.Decisions {
		if dc.JobID == job && (dc.TimeLimit > 0 || slices.Contains(dc.Reasons, planner.ReasonClaimBound)) {
			t.Errorf("alice's honest job bound: limit %v, reasons %v", dc.TimeLimit, dc.Reasons)
		}
	}
	if got := cl.ShowJob(t, job)["TimeLimit"]; got != "02:00:00" {
		t.Errorf("alice's job has time limit %s after an enforcing cycle, want her 02:00:00", got)
	}
}
