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
	s := dbtest.Open(t, dbtest.URL(t), true)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	job := func(id int64, name string, state planner.JobState, start time.Time) planner.Job {
		return planner.Job{ID: id, Name: name, User: "alice", Partition: "gpu", State: state, GPUsPerNode: 2, Nodes: 1,
			SubmitTime: start.Add(-time.Minute), StartTime: start}
	}
	jobs := []planner.Job{
		job(1, "bert-a", planner.JobCompleted, t0),
		job(2, "bert-b", planner.JobCompleted, t0.Add(time.Hour)),
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
		{User: "alice", Name: "bert-a", Partition: "gpu", GPUs: 2, Start: t0, End: t0.Add(2 * time.Hour)},
		{User: "alice", Name: "bert-b", Partition: "gpu", GPUs: 2, Start: t0.Add(time.Hour), End: t0.Add(4 * time.Hour)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finished jobs (-want +got):\n%s", diff)
	}
	if got, _ := s.FinishedJobs(ctx, "c1", t0.Add(3*time.Hour), 10); len(got) != 1 || got[0].Name != "bert-b" {
		t.Errorf("since: %v", got)
	}
	if got, _ := s.FinishedJobs(ctx, "other", t0, 10); len(got) != 0 {
		t.Errorf("another cluster's jobs: %v", got)
	}
}
