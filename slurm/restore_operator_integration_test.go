package slurm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// An operator's token (the least privilege that writes priorities) leaves
// no admin comment; restore then works from the audit trail: Slurm's
// priority and the user's GPU request come back, written by the operator
// (issue 30.4). A bound limit is refused to such a writer, with the fix:
// nothing would keep the user's own (before, it was lowered and the
// original lost). Real slurmrestd with slurmdbd.
func TestIntegrationAccountingRestoreAsOperator(t *testing.T) {
	cl := accounting(t)
	c := clientAs(t, cl, cl.Operator)
	ctx := context.Background()
	id := cl.SbatchAs(t, "alice", "-J", tag(t), "--chdir=/tmp", "-o", "/dev/null", "--gres=gpu:4", "-c", "8", "--mem=16000",
		"--time=02:00:00", "--begin=now+3600", "--wrap=sleep 30")
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 1, Priority: 88888}
	rep, err := c.Apply(ctx, []planner.Decision{d}, slurm.ApplyOptions{Cycle: 3, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 1 {
		t.Fatalf("apply as operator: %v %+v", err, rep.Results)
	}
	bound := d
	bound.TimeLimit, bound.Priority = 30*time.Minute, 88889
	br, err := c.Apply(ctx, []planner.Decision{bound}, slurm.ApplyOptions{Cycle: 4, Nodes: s.Nodes, Now: s.Now})
	if err != nil || br.Count(decide.Failed) != 1 || !strings.Contains(br.Results[0].Detail, "lower a job's time limit") {
		t.Errorf("bound limit as operator: %v %+v; want refused", err, br.Results)
	}
	if kv := cl.ShowJob(t, id); kv["Priority"] != "88888" || strings.Contains(kv["AdminComment"], "strata:") {
		t.Fatalf("operator's write: priority %s, admin comment %q", kv["Priority"], kv["AdminComment"])
	}
	trails := map[int64]slurm.Trail{id: {FirstGPUs: 4, Applied: []string{rep.Results[0].Body}}}
	res, err := c.Restore(ctx, []int64{id}, slurm.RestoreOptions{Now: time.Now(), Trails: trails})
	if err != nil || res.Count(decide.Applied) != 1 {
		t.Fatalf("restore as operator: %v %+v", err, res.Results)
	}
	kv := cl.ShowJob(t, id)
	if kv["Priority"] == "88888" || kv["Priority"] == "0" || kv["TresPerNode"] != "gres/gpu:4" || kv["MinCPUsNode"] != "8" {
		t.Errorf("after restore: priority %s, TresPerNode %s, MinCPUsNode %s; want Slurm's, gres/gpu:4, 8",
			kv["Priority"], kv["TresPerNode"], kv["MinCPUsNode"])
	}
	if kv["TimeLimit"] != "02:00:00" {
		t.Errorf("time limit %s, want the user's 02:00:00 (never lowered)", kv["TimeLimit"])
	}
}
