package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/planner"
)

// TestCalibrationJobs: a completed job is paired with the planner's last
// decision before it started (model, GPU type, modelled run time at the
// decided size), its real run time and its busy GPU samples; the modelled
// time is dropped when the job ran on another GPU count; a job cancelled
// after it ran is a censored run (its real time a lower bound, like a
// TIMEOUT: issue 32); jobs still running, or that no decision covers, are
// left out.
func TestCalibrationJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.Open(t, dbtest.URL(t), true)
	ctx := context.Background()
	t0 := synthT0
	decide := func(at time.Time, job int64, workers int, model, gpu string, run time.Duration) {
		c := &db.Cycle{Cluster: "c1", SnapshotID: "s", Policy: "smd", StartedAt: at,
			Decisions: []db.CycleDecision{{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate, Workers: workers,
				Reasons: []planner.Reason{planner.ReasonWaitResources}}, Outcome: "dry-run",
				HasFacts: gpu != "unknown", Model: model, GPUType: gpu, ModelRun: run}}}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// Job 1: bert on an a100, decided twice before its start and once
	// after; runs 20 min at 300 W, 90 % (busy), then is idle... all busy.
	decide(t0.Add(-5*time.Minute), 1, 1, "bert", "a100", time.Hour)     // superseded
	decide(t0.Add(-time.Minute), 1, 1, "bert", "a100", 10*time.Minute)  // in force at the start
	decide(t0.Add(5*time.Minute), 1, 1, "bert", "a100", 99*time.Minute) // after the start: ignored
	decide(t0.Add(-time.Minute), 2, 2, "bert", "a100", 30*time.Minute)  // job 2 runs on 1 GPU, not 2
	decide(t0.Add(-time.Minute), 3, 1, "", "t4", 0)                     // no model: power only
	decide(t0.Add(-time.Minute), 4, 1, "bert", "a100", 10*time.Minute)  // job 4 never completes
	decide(t0.Add(-time.Minute), 6, 1, "bert", "a100", 10*time.Minute)  // job 6 is cancelled after 50 min: censored
	jobs := []synthJob{
		{cluster: "c1", id: 1, user: "alice", gpu: "GPU-A", submit: t0.Add(-10 * time.Minute), start: t0, end: t0.Add(20 * time.Minute), powerW: 300, util: 90},
		{cluster: "c1", id: 2, user: "alice", gpu: "GPU-B", submit: t0.Add(-10 * time.Minute), start: t0, end: t0.Add(40 * time.Minute), powerW: 200, util: 90},
		{cluster: "c1", id: 3, user: "bob", gpu: "GPU-C", submit: t0.Add(-10 * time.Minute), start: t0, end: t0.Add(30 * time.Minute), powerW: 40, util: 2},
		{cluster: "c1", id: 5, user: "bob", gpu: "GPU-D", submit: t0.Add(-10 * time.Minute), start: t0, end: t0.Add(30 * time.Minute), powerW: 60, util: 50},
	}
	writeSynth(t, s, jobs...)
	running := []planner.Job{{ID: 4, User: "carol", Partition: "gpu", State: planner.JobRunning, SubmitTime: t0.Add(-10 * time.Minute),
		StartTime: t0, GPUsPerJob: 1}}
	if err := s.UpsertJobs(ctx, "c1", running, nil); err != nil {
		t.Fatal(err)
	}
	cancelled := []planner.Job{{ID: 6, User: "dan", Partition: "gpu", State: "CANCELLED", SubmitTime: t0.Add(-10 * time.Minute),
		StartTime: t0, GPUsPerJob: 1}}
	if err := s.UpsertJobs(ctx, "c1", cancelled, map[int64]time.Time{6: t0.Add(50 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	refreshAll(t, s, t0.Add(-time.Hour), t0.Add(2*time.Hour))
	got, err := s.CalibrationJobs(ctx, "c1", t0.Add(-time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []db.CalibrationJob{
		{JobID: 1, End: t0.Add(20 * time.Minute), User: "alice", Model: "bert", GPUType: "a100", ModelSeconds: 600, RealSeconds: 1200,
			BusyEnergyJ: 300 * 1200, BusyGPUSeconds: 1200},
		{JobID: 3, End: t0.Add(30 * time.Minute), User: "bob", GPUType: "t4", RealSeconds: 1800},
		{JobID: 2, End: t0.Add(40 * time.Minute), User: "alice", Model: "bert", GPUType: "a100", RealSeconds: 2400,
			BusyEnergyJ: 200 * 2400, BusyGPUSeconds: 2400},
		{JobID: 6, End: t0.Add(50 * time.Minute), User: "dan", Model: "bert", GPUType: "a100", ModelSeconds: 600, RealSeconds: 3000,
			TimedOut: true},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0.02, 1)); diff != "" {
		t.Errorf("calibration jobs (-want +got):\n%s", diff)
	}
	if got, _ := s.CalibrationJobs(ctx, "c1", t0.Add(25*time.Minute), 10); len(got) != 3 || got[0].JobID != 3 {
		t.Errorf("since: %+v", got)
	}
	if got, _ := s.CalibrationJobs(ctx, "other", t0.Add(-time.Hour), 10); len(got) != 0 {
		t.Errorf("another cluster's jobs: %+v", got)
	}
}
