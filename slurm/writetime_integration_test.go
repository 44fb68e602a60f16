package slurm_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// Apply re-reads every job before it writes: a hold added after the
// snapshot (by the user, an admin or Slurm), a rewrite=no added since, a job
// array or a heterogeneous job stop the write, and a per-task GPU request
// keeps its GPUs (issue 13 items 2 and 4). Real slurmrestd.
func TestIntegrationWriteTimeChecks(t *testing.T) {
	cl, c := integration(t)
	begin := "--begin=now+3600"
	held := cl.Sbatch(t, "-J", tag(t)+"-held", "--gres=gpu:1", begin, "--wrap=sleep 30")
	optout := cl.Sbatch(t, "-J", tag(t)+"-optout", "--gres=gpu:1", begin, "--comment=strata: gpus=1-2", "--wrap=sleep 30")
	array := cl.Sbatch(t, "-J", tag(t)+"-array", "--array=0-3", "--gres=gpu:1", begin, "--wrap=sleep 30")
	het := cl.Sbatch(t, "-J", tag(t)+"-het", "--gres=gpu:1", begin, ":", "--gres=gpu:1", begin, "--wrap=sleep 30")
	pertask := cl.Sbatch(t, "-J", tag(t)+"-pertask", "--gpus-per-task=1", "-n", "2", begin, "--wrap=sleep 30")
	// The snapshot the plan was made from: nothing held yet.
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := findJob(s, array); j.ArrayJobID != array {
		t.Errorf("array job %d read with ArrayJobID %d", array, j.ArrayJobID)
	}
	if j, _ := findJob(s, het); j.HetJobID != het {
		t.Errorf("het job %d read with HetJobID %d", het, j.HetJobID)
	}
	if j, _ := findJob(s, pertask); j.GPUs() != 2 || j.GPUsPerTask != 1 || j.Tasks != 2 {
		t.Errorf("--gpus-per-task=1 -n 2 read as %d GPUs (%+v)", j.GPUs(), j)
	}
	itoa := func(id int64) string { return strconv.FormatInt(id, 10) }
	// Then, before the write: a hold and an opt-out.
	cl.MustExec(t, "scontrol", "hold", itoa(held))
	cl.MustExec(t, "scontrol", "update", "jobid="+itoa(optout), "comment=strata: gpus=1-2 rewrite=no")
	upd := func(id int64) planner.Decision {
		return planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 1, Priority: 88888}
	}
	rep, err := c.Apply(context.Background(), []planner.Decision{upd(held), upd(optout), upd(array), upd(het), upd(pertask)},
		slurm.ApplyOptions{Cycle: 7, Nodes: s.Nodes})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]decide.Outcome{held: decide.SkippedHeld, optout: decide.SkippedOptOut, array: decide.Refused,
		het: decide.Refused, pertask: decide.Applied}
	for _, r := range rep.Results {
		if r.Outcome != want[r.JobID] {
			t.Errorf("job %d: outcome %s (%s), want %s", r.JobID, r.Outcome, r.Detail, want[r.JobID])
		}
	}
	for _, id := range []int64{held, optout, array, het} {
		if p := cl.ShowJob(t, id)["Priority"]; p == "88888" {
			t.Errorf("job %d got the priority written", id)
		}
	}
	if p := cl.ShowJob(t, held)["Priority"]; p != "0" {
		t.Errorf("held job %d priority %s, want 0 (still held)", held, p)
	}
	kv := cl.ShowJob(t, pertask)
	if kv["Priority"] != "88888" || kv["TresPerTask"] != "gres/gpu=1" {
		t.Errorf("per-task job: priority %s, TresPerTask %s; want the priority written and the GPU request kept", kv["Priority"], kv["TresPerTask"])
	}
}

// A begin time Strata writes (Decision.NotBefore) is read back as its own
// (Job.DeferredUntil, not the user's BeginTime), recorded in the admin
// comment, and released (begin time = now) when the plan no longer wants it.
func TestIntegrationDeferAndRelease(t *testing.T) {
	cl, c := integration(t)
	// A dependency on a job that waits an hour keeps this one pending
	// whatever the cluster's load.
	gate := cl.Sbatch(t, "-J", tag(t)+"-gate", "--gres=gpu:1", "--begin=now+3600", "--wrap=sleep 30")
	job := cl.Sbatch(t, "-J", tag(t)+"-job", "--gres=gpu:1", "--dependency=afterok:"+strconv.FormatInt(gate, 10),
		"--comment=strata: gpus=1-2", "--wrap=sleep 30")
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	notBefore := s.Now.Add(20 * time.Minute).Truncate(time.Second)
	d := planner.Decision{JobID: job, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1,
		Rank: 1, Priority: 90000, NotBefore: notBefore}
	rep, err := c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 5, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 1 {
		t.Fatalf("defer: %+v, %v", rep.Results, err)
	}
	s, err = c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j, _ := findJob(s, job)
	if !j.DeferredUntil.Equal(notBefore) || !j.BeginTime.IsZero() {
		t.Errorf("after the deferral: DeferredUntil %v BeginTime %v, want %v and none", j.DeferredUntil, j.BeginTime, notBefore)
	}
	if w, ok := decide.ParseAdminComment(j.AdminComment); !ok || !w.Defer.Equal(notBefore) {
		t.Errorf("admin comment %q does not record the deferral", j.AdminComment)
	}
	d.NotBefore = time.Time{}
	rep, err = c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 6, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 1 {
		t.Fatalf("release: %+v, %v", rep.Results, err)
	}
	s, err = c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j, _ = findJob(s, job)
	if !j.DeferredUntil.IsZero() || j.BeginTime.After(s.Now) {
		t.Errorf("after the release: DeferredUntil %v BeginTime %v (now %v), want none / not ahead", j.DeferredUntil, j.BeginTime, s.Now)
	}
	if w, _ := decide.ParseAdminComment(j.AdminComment); !w.Defer.IsZero() {
		t.Errorf("admin comment %q still records a deferral", j.AdminComment)
	}
}

// A GPU rewrite keeps the rest of the request and scales CPUs per task and
// memory per node with the GPUs (issue 13.5): -c 8 --mem=8000 with 4 GPUs
// planned on 1 runs with 2 CPUs and 2000 MB, and Slurm starts it so.
func TestIntegrationRewriteScalesCPUsAndMemory(t *testing.T) {
	cl, c := integration(t)
	id := cl.Sbatch(t, "-J", tag(t)+"-scale", "--gres=gpu:4", "-c", "8", "--mem=8000", "--begin=now+3600",
		"--comment=strata: gpus=1-4", "--wrap=sleep 1")
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := findJob(s, id); j.CPUsPerTask != 8 || j.MemoryPerNodeMB != 8000 || j.TRESPerNode != "gres/gpu:4" {
		t.Fatalf("job read as cpus/task %d, memory/node %d, tres %q", j.CPUsPerTask, j.MemoryPerNodeMB, j.TRESPerNode)
	}
	d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1, Priority: 77777}
	rep, err := c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 9, Nodes: s.Nodes})
	if err != nil || rep.Results[0].Outcome != decide.Applied {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	itoa := strconv.FormatInt(id, 10)
	kv := cl.ShowJob(t, id)
	for k, want := range map[string]string{"TresPerNode": "gres/gpu:1", "NumCPUs": "2", "CPUs/Task": "2", "MinMemoryNode": "2000M"} {
		if kv[k] != want {
			t.Errorf("after the rewrite %s=%q, want %q", k, kv[k], want)
		}
	}
	cl.MustExec(t, "scontrol", "update", "jobid="+itoa, "StartTime=now")
	if st := cl.WaitState(t, id, "COMPLETED", 60*time.Second); st != "COMPLETED" && st != "RUNNING" {
		t.Fatalf("job %d did not run: %s", id, st)
	}
	if got := cl.ShowJob(t, id)["NumCPUs"]; got != "2" {
		t.Errorf("ran with NumCPUs=%s, want 2", got)
	}
}

// A job asking CPUs per GPU, moved to fewer nodes with the same GPUs per
// node, must still start: Slurm recomputes its CPU totals only when the
// TRES string is sent (found by make evaluate-slurm: 11 of 100 jobs stayed
// pending with BadConstraints).
func TestIntegrationFewerNodesSameGPUsPerNode(t *testing.T) {
	cl, c := integration(t)
	id := cl.Sbatch(t, "-J", tag(t)+"-nodes", "-N", "2", "--gres=gpu:2", "--cpus-per-gpu=4", "--begin=now+3600",
		"--comment=strata: gpus=2-4", "--wrap=sleep 1")
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 1, Priority: 55555}
	rep, err := c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 13, Nodes: s.Nodes})
	if err != nil || rep.Results[0].Outcome != decide.Applied {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10), "StartTime=now")
	if st := cl.WaitState(t, id, "COMPLETED", 60*time.Second); st != "COMPLETED" && st != "RUNNING" {
		kv := cl.ShowJob(t, id)
		t.Fatalf("job moved to one node did not run: %s (reason %s, NumCPUs %s)", st, kv["Reason"], kv["NumCPUs"])
	}
}
