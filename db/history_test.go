package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/planner"
)

func TestFinishedJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	job := func(id int64, name string, state planner.JobState, start time.Time) planner.Job {
		return planner.Job{ID: id, Name: name, User: "alice", Partition: "gpu", State: state, GPUsPerNode: 2, Nodes: 1,
			SubmitTime: start.Add(-time.Minute), StartTime: start}
	}
	limited := func(j planner.Job, limit time.Duration) planner.Job { j.TimeLimit = limit; return j }
	jobs := []planner.Job{
		limited(job(1, "bert-a", planner.JobCompleted, t0), 3*time.Hour),
		job(2, "bert-b", planner.JobCompleted, t0.Add(time.Hour)), // no limit known
		job(3, "cut-short", planner.JobState("CANCELLED"), t0),
		job(4, "still-running", planner.JobRunning, t0),
	}
	ends := map[int64]time.Time{1: t0.Add(2 * time.Hour), 2: t0.Add(4 * time.Hour), 3: t0.Add(time.Minute)}
	if err := s.UpsertJobs(ctx, "c1", jobs, ends); err != nil {
		t.Fatal(err)
	}
	got, err := s.FinishedJobs(ctx, "c1", t0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []db.FinishedJob{
		{User: "alice", Name: "bert-a", Partition: "gpu", GPUs: 2, Start: t0, End: t0.Add(2 * time.Hour), TimeLimit: 3 * time.Hour},
		{User: "alice", Name: "bert-b", Partition: "gpu", GPUs: 2, Start: t0.Add(time.Hour), End: t0.Add(4 * time.Hour)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finished jobs (-want +got):\n%s", diff)
	}
	if got, _ := s.FinishedJobs(ctx, "c1", t0.Add(3*time.Hour), 10); len(got) != 1 || got[0].Name != "bert-b" {
		t.Errorf("since: %v", got)
	}
	// A later report without a limit (a record of the run's end) keeps the
	// one known.
	if err := s.UpsertJobs(ctx, "c1", []planner.Job{limited(jobs[0], 0)}, ends); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FinishedJobs(ctx, "c1", t0, 1); len(got) != 1 || got[0].TimeLimit != 3*time.Hour {
		t.Errorf("after a report without the limit: %+v, want the 3 h limit kept", got)
	}
	if got, _ := s.FinishedJobs(ctx, "other", t0, 10); len(got) != 0 {
		t.Errorf("another cluster's jobs: %v", got)
	}
}

// TestPredictionReport: a completed job is paired with the prediction of
// the planner's last decision before it started; decisions after its
// start, and jobs that did not complete, do not count.
func TestPredictionReport(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	cycle := func(at time.Time, job int64, run time.Duration, reason planner.Reason) {
		c := &db.Cycle{Cluster: "c1", SnapshotID: "s", Policy: "smd", StartedAt: at,
			Decisions: []db.CycleDecision{{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate,
				PredictedStart: at.Add(time.Minute), PredictedEnd: at.Add(time.Minute + run),
				Reasons: []planner.Reason{planner.ReasonWaitResources, reason}}, User: "alice", Partition: "gpu",
				Outcome: "dry-run"}}}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	cycle(t0.Add(5*time.Minute), 1, 2*time.Hour, planner.ReasonModelled)     // superseded
	cycle(t0.Add(10*time.Minute), 1, 90*time.Minute, planner.ReasonModelled) // the last before the start
	cycle(t0.Add(40*time.Minute), 1, 10*time.Hour, planner.ReasonTimeLimit)  // after the start: ignored
	cycle(t0.Add(10*time.Minute), 2, 3*time.Hour, planner.ReasonTimeLimit)   // job 2 never completes
	start := t0.Add(30 * time.Minute)
	jobs := []planner.Job{
		{ID: 1, User: "alice", Partition: "gpu", State: planner.JobCompleted, SubmitTime: t0, StartTime: start},
		{ID: 2, User: "alice", Partition: "gpu", State: planner.JobRunning, SubmitTime: t0, StartTime: start},
	}
	if err := s.UpsertJobs(ctx, "c1", jobs, map[int64]time.Time{1: start.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.PredictionReport(ctx, db.ReportFilter{From: t0, To: t0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := []db.PredictionRow{{User: "alice", Partition: "gpu", Source: "modelled", Predicted: 5400, Actual: 3600,
		JobID: 1, End: start.Add(time.Hour), SameSize: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prediction rows (-want +got):\n%s", diff)
	}
}
