package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// TestTrustOutcomes: each finished job is paired with the planner's last
// decision before it started; the prediction is the one before the user's
// correction (Decision.Claimed) when there was one, else the decided run;
// a job stopped at its limit is TimedOut; a job its hint did not time is
// NoClaim; jobs that failed, ran on another size, or have no user do not
// count; the time limit Strata bound is kept.
func TestTrustOutcomes(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	decideBy := func(at time.Time, job int64, user string, run, claimed time.Duration, source planner.Reason) {
		c := &db.Cycle{Cluster: "c1", SnapshotID: "s", Policy: "smd", StartedAt: at,
			Decisions: []db.CycleDecision{{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate, Workers: 1,
				PredictedStart: at.Add(time.Minute), PredictedEnd: at.Add(time.Minute + run), Claimed: claimed,
				TimeLimit: 30 * time.Minute, Reasons: []planner.Reason{planner.ReasonWaitOrder, source}}, User: user, Outcome: "dry-run"}}}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	decide := func(at time.Time, job int64, user string, run, claimed time.Duration) {
		decideBy(at, job, user, run, claimed, planner.ReasonModelled) // timed by its hint
	}
	decide(t0.Add(5*time.Minute), 1, "mallory", 2*time.Hour, 0)                              // superseded
	decide(t0.Add(10*time.Minute), 1, "mallory", time.Minute, 0)                             // the claim: 1 min
	decide(t0.Add(10*time.Minute), 2, "mallory", 48*time.Hour, 36*time.Second)               // distrusted: claimed 36 s
	decide(t0.Add(10*time.Minute), 3, "alice", time.Hour, 0)                                 // failed
	decide(t0.Add(10*time.Minute), 4, "alice", time.Hour, 0)                                 // ran on 2 GPUs
	decide(t0.Add(10*time.Minute), 5, "alice", 30*time.Minute, 0)                            // honest
	decideBy(t0.Add(10*time.Minute), 6, "alice", 10*time.Minute, 0, planner.ReasonPredicted) // no hint: history
	start := t0.Add(30 * time.Minute)
	gpu := func(j planner.Job, n int) planner.Job { j.GPUsPerNode, j.Nodes = n, 1; return j }
	jobs := []planner.Job{
		gpu(planner.Job{ID: 1, User: "mallory", Account: "lab", State: "TIMEOUT", SubmitTime: t0, StartTime: start}, 1),
		gpu(planner.Job{ID: 2, User: "mallory", Account: "lab", State: planner.JobCompleted, SubmitTime: t0, StartTime: start}, 1),
		gpu(planner.Job{ID: 3, User: "alice", State: "FAILED", SubmitTime: t0, StartTime: start}, 1),
		gpu(planner.Job{ID: 4, User: "alice", State: planner.JobCompleted, SubmitTime: t0, StartTime: start}, 2),
		gpu(planner.Job{ID: 5, User: "alice", State: planner.JobCompleted, SubmitTime: t0, StartTime: start}, 1),
		gpu(planner.Job{ID: 6, User: "alice", State: planner.JobCompleted, SubmitTime: t0, StartTime: start}, 1),
	}
	end := map[int64]time.Time{1: start.Add(time.Hour), 2: start.Add(2 * time.Hour), 3: start.Add(time.Hour),
		4: start.Add(time.Hour), 5: start.Add(33 * time.Minute), 6: start.Add(34 * time.Minute)}
	if err := s.UpsertJobs(ctx, "c1", jobs, end); err != nil {
		t.Fatal(err)
	}
	got, err := s.TrustOutcomes(ctx, "c1", t0, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []trust.Outcome{
		{User: "alice", JobID: 5, End: end[5], Predicted: 30 * time.Minute, Real: 33 * time.Minute, GPUs: 1},
		{User: "alice", JobID: 6, End: end[6], Predicted: 10 * time.Minute, Real: 34 * time.Minute, GPUs: 1, NoClaim: true},
		{User: "mallory", Account: "lab", JobID: 1, End: end[1], Predicted: time.Minute, Real: time.Hour, TimedOut: true, GPUs: 1},
		{User: "mallory", Account: "lab", JobID: 2, End: end[2], Predicted: 36 * time.Second, Real: 2 * time.Hour, GPUs: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if got, err := s.TrustOutcomes(ctx, "c1", end[1], 100); err != nil || len(got) != 1 {
		t.Errorf("since the first end: %d outcomes (%v), want 1", len(got), err)
	}
	ds, err := s.DecisionsForJob(ctx, 2, "c1", 1)
	if err != nil || len(ds) != 1 || ds[0].TimeLimit != 30*time.Minute || ds[0].Claimed != 36*time.Second {
		t.Errorf("stored decision of job 2 (%v): %+v, want time limit 30m and claimed 36s", err, ds)
	}
}

// TestTrustRunning: a running job of the snapshot is paired with the
// planner's last decision before it started, as an ended one is
// (TestTrustOutcomes), with how long it has run so far; jobs that are not
// running, ran on another size or have no decision are left out (issue
// 30: a running lie counts in its user's record once it overran).
func TestTrustRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	decide := func(at time.Time, job int64, run, claimed time.Duration, source planner.Reason) {
		c := &db.Cycle{Cluster: "c1", SnapshotID: "s", Policy: "smd", StartedAt: at,
			Decisions: []db.CycleDecision{{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate, Workers: 2,
				PredictedStart: at.Add(time.Minute), PredictedEnd: at.Add(time.Minute + run), Claimed: claimed,
				Reasons: []planner.Reason{planner.ReasonWaitOrder, source}}, User: "mallory", Outcome: "dry-run"}}}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	decide(t0.Add(5*time.Minute), 1, time.Hour, 0, planner.ReasonModelled)               // superseded
	decide(t0.Add(10*time.Minute), 1, 6*time.Minute, 0, planner.ReasonModelled)          // the claim
	decide(t0.Add(10*time.Minute), 2, time.Hour, 36*time.Second, planner.ReasonModelled) // claimed 36 s
	decide(t0.Add(10*time.Minute), 3, time.Hour, 0, planner.ReasonPredicted)             // history
	decide(t0.Add(10*time.Minute), 4, time.Hour, 0, planner.ReasonModelled)              // runs on 4 GPUs
	decide(t0.Add(40*time.Minute), 6, time.Hour, 0, planner.ReasonModelled)              // after its start
	start := t0.Add(30 * time.Minute)
	now := start.Add(2 * time.Hour)
	job := func(id int64, state planner.JobState, gpus int) planner.Job {
		return planner.Job{ID: id, User: "mallory", Account: "lab", State: state, SubmitTime: t0, StartTime: start,
			GPUsPerNode: gpus, Nodes: 1}
	}
	jobs := []planner.Job{job(1, planner.JobRunning, 2), job(2, planner.JobRunning, 2), job(3, planner.JobRunning, 2),
		job(4, planner.JobRunning, 4), job(5, planner.JobPending, 2), job(6, planner.JobRunning, 2)}
	got, err := s.TrustRunning(ctx, "c1", jobs, now)
	if err != nil {
		t.Fatal(err)
	}
	run := func(id int64, pred time.Duration, noClaim bool) trust.Outcome {
		return trust.Outcome{User: "mallory", Account: "lab", JobID: id, End: now, Predicted: pred, Real: 2 * time.Hour,
			GPUs: 2, NoClaim: noClaim, Running: true}
	}
	want := []trust.Outcome{run(1, 6*time.Minute, false), run(2, 36*time.Second, false), run(3, time.Hour, true)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("running outcomes (-want +got):\n%s", diff)
	}
	if got, err := s.TrustRunning(ctx, "c1", jobs[4:5], now); err != nil || len(got) != 0 {
		t.Errorf("no running job: %v (%v), want none", got, err)
	}
}
