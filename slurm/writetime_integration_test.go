package slurm_test

import (
	"context"
	"strconv"
	"testing"

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
	want := map[int64]slurm.Outcome{held: slurm.SkippedHeld, optout: slurm.SkippedOptOut, array: slurm.Refused,
		het: slurm.Refused, pertask: slurm.Applied}
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
