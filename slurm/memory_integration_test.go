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

// Issue 15.5: a job whose workers each need 40 GiB of host memory (mem=)
// on the test cluster's nodes of 64000 MB gets a feasible size: one worker
// per node, never two (81920 MB), and Strata writes the memory per node the
// plan counted — the job's own --mem scaled to one GPU (15000 MB) would let
// Slurm put other jobs into memory the worker needs. Slurm then runs it.
func TestIntegrationMemoryBoundJobGetsAFeasibleSize(t *testing.T) {
	cl, c := integration(t)
	ctx := context.Background()
	id := cl.Sbatch(t, "-J", tag(t)+"-mem", "--gres=gpu:4", "--mem=60000", "--begin=now+3600",
		"--comment=strata: model=resnet50 batch=64 epochs=1 samples=12811 gpus=1-4 mem=40G", "--wrap=sleep 1")
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := planSMD(t, s)[id]
	if d.Action != planner.ActionUpdate || d.GPUsPerNode != 1 || d.MemoryPerNodeMB != 40960 {
		t.Fatalf("decision %+v: want an update with 1 GPU per node and 40960 MB per node", d)
	}
	rep, err := c.Apply(ctx, []planner.Decision{d}, slurm.ApplyOptions{Cycle: 11, Nodes: s.Nodes})
	if err != nil || rep.Results[0].Outcome != decide.Applied {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	kv := cl.ShowJob(t, id)
	if kv["TresPerNode"] != "gres/gpu:1" || (kv["MinMemoryNode"] != "40G" && kv["MinMemoryNode"] != "40960M") {
		t.Errorf("after the rewrite TresPerNode=%q MinMemoryNode=%q, want gres/gpu:1 and 40G", kv["TresPerNode"], kv["MinMemoryNode"])
	}
	cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10), "StartTime=now")
	if st := cl.WaitState(t, id, "COMPLETED", 90*time.Second); st != "COMPLETED" && st != "RUNNING" {
		t.Fatalf("job %d did not run: %s", id, st)
	}
}
