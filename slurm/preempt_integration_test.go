package slurm_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// countingJob is the documented job-side example itself
// (scripts/examples/checkpoint-requeue.sh): it counts to 15, one step a
// second, keeps its count in a checkpoint file, saves and requeues itself
// on SIGUSR1, and resumes from the checkpoint on restart.
func countingJob(t *testing.T) string {
	t.Helper()
	root := os.Getenv("STRATA_REPO_ROOT")
	if root == "" {
		root = ".."
	}
	b, err := os.ReadFile(filepath.Join(root, "scripts", "examples", "checkpoint-requeue.sh"))
	if err != nil {
		t.Fatalf("the job-side example: %v", err)
	}
	return string(b)
}

// TestIntegrationPreemptRequeueResize (issue 14): a running job that opted
// in is sent its checkpoint signal, requeues itself, is rewritten to 1 GPU
// while pending (the requeue delay lifted), resumes from its checkpoint and
// finishes on 1 GPU. A job that did not ask for --requeue is never signalled.
func TestIntegrationPreemptRequeueResize(t *testing.T) {
	cl, c := integration(t)
	ctx := context.Background()
	id := cl.SbatchAs(t, "alice", "-J", tag(t)+"-ck", "-D", "/tmp", "-o", "/dev/null", "--requeue", "--gres=gpu:2",
		"-t", "5", "--comment=strata: gpus=1-2", "--wrap="+countingJob(t))
	plain := cl.SbatchAs(t, "alice", "-J", tag(t)+"-plain", "-D", "/tmp", "-o", "/dev/null", "--no-requeue",
		"--gres=gpu:1", "-t", "5", "--wrap=sleep 30")
	for _, j := range []int64{id, plain} {
		if st := cl.WaitState(t, j, "RUNNING", 60*time.Second); st != "RUNNING" {
			t.Fatalf("job %d: %s", j, st)
		}
	}
	time.Sleep(4 * time.Second) // some progress to keep
	// Who opted in is the caller's rule (the daemon passes the planner's:
	// hint preempt=yes); here, the counting job.
	optedIn := func(j planner.Job) (string, bool) { return "USR1", strings.HasSuffix(j.Name, "-ck") }
	ds := []planner.Decision{
		{JobID: id, Action: planner.ActionPreempt, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1},
		{JobID: plain, Action: planner.ActionPreempt, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 2},
	}
	rep, err := c.Apply(ctx, ds, slurm.ApplyOptions{Cycle: 21, Preemptible: optedIn, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]decide.Outcome{}
	for _, r := range rep.Results {
		got[r.JobID] = r.Outcome
	}
	if got[id] != decide.Signalled || got[plain] != decide.Refused {
		t.Fatalf("outcomes %v: want the opted-in job signalled, the other refused", rep.Results)
	}
	if st := cl.WaitState(t, id, "PENDING", 30*time.Second); st != "PENDING" {
		t.Fatalf("signalled job did not requeue itself: %s", st)
	}
	if st := cl.ShowJob(t, plain)["JobState"]; st != "RUNNING" {
		t.Errorf("the job without --requeue is %s, want RUNNING (never signalled)", st)
	}
	// The next cycle sees a pending job with Slurm's requeue delay (its own
	// begin time, cred_expire + 1 s: never lifted, or slurmd would refuse the
	// restart on the same node) and rewrites it to 1 GPU meanwhile.
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := findJob(s, id)
	if j.BeginTime.IsZero() || !j.DeferredUntil.IsZero() {
		t.Errorf("requeued job read with begin time %v, deferred until %v: the requeue delay is Slurm's begin time", j.BeginTime, j.DeferredUntil)
	}
	up := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1, Priority: 99000}
	rep, err = c.Apply(ctx, []planner.Decision{up}, slurm.ApplyOptions{Cycle: 22, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Results[0].Outcome != decide.Applied {
		t.Fatalf("rewrite of the requeued job: %v %+v", err, rep.Results)
	}
	if st := cl.WaitState(t, id, "COMPLETED", 60*time.Second); st != "COMPLETED" {
		t.Fatalf("requeued job did not finish within a minute: %s", st)
	}
	log := cl.MustExec(t, "cat", "/tmp/strata-ck."+strconv.FormatInt(id, 10)+".log")
	if !strings.Contains(log, "resumed at ") || strings.Contains(log, "resumed at 0\n") || !strings.Contains(log, "done n=15 gpus=1") {
		t.Errorf("job log %q: want a resume from a non-zero checkpoint and the end on 1 GPU", log)
	}
	kv := cl.ShowJob(t, id)
	if kv["Restarts"] != "1" {
		t.Errorf("Restarts=%s, want 1", kv["Restarts"])
	}
	if !strings.Contains(kv["AdminComment"], "sig=") {
		t.Errorf("admin comment %q lacks sig=", kv["AdminComment"])
	}
}
