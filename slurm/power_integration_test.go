package slurm_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// nodeState is `scontrol show node` State (e.g. IDLE+POWERED_DOWN).
func nodeState(t *testing.T, cl *slurmtest.Cluster, node string) string {
	t.Helper()
	out := cl.MustExec(t, "scontrol", "show", "node", "-o", node)
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "State="); ok {
			return v
		}
	}
	t.Fatalf("no State in %q", out)
	return ""
}

// waitNode polls until node's state satisfies ok or the timeout passes.
func waitNode(t *testing.T, cl *slurmtest.Cluster, node string, timeout time.Duration, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := nodeState(t, cl, node)
		if ok(st) || time.Now().After(deadline) {
			return st
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestExclusiveApplyPower powers node2 down and up again through
// slurmrestd while a job holds node1: the guard refuses node1, the cap
// holds back what exceeds it, a dry run sends nothing, and Slurm's
// SuspendProgram and ResumeProgram (which stop and start node2's slurmd)
// run. node2 is powered up again at the end; Slurm would also resume it for
// a job that needs it. It takes a node away from every other test, so
// `make test` runs it alone, after the parallel suite
// (STRATA_TEST_EXCLUSIVE=1).
func TestExclusiveApplyPower(t *testing.T) {
	if os.Getenv("STRATA_TEST_EXCLUSIVE") != "1" {
		t.Skip("powers a node of the shared test cluster down: make test runs it alone (STRATA_TEST_EXCLUSIVE=1)")
	}
	cl, c := integration(t)
	ctx := context.Background()
	up := func(st string) bool { return !strings.Contains(st, "POWER") && strings.HasPrefix(st, "IDLE") }
	if st := waitNode(t, cl, "node2", 90*time.Second, up); !up(st) {
		t.Fatalf("node2 is %s, want IDLE and powered to start", st)
	}
	t.Cleanup(func() {
		if st := nodeState(t, cl, "node2"); strings.Contains(st, "POWER") {
			_, _ = cl.Exec("scontrol", "update", "nodename=node2", "state=POWER_UP")
			waitNode(t, cl, "node2", 90*time.Second, up)
		}
	})
	job := cl.Sbatch(t, "-J", tag(t), "-w", "node1", "--gres=gpu:1", "--wrap=sleep 300")
	if st := cl.WaitState(t, job, "RUNNING", 60*time.Second); st != "RUNNING" {
		t.Fatalf("job %d on node1 is %s, want RUNNING", job, st)
	}
	down := []slurm.NodePower{{Node: "node1"}, {Node: "node2"}, {Node: "node9"}}
	ignore := cmpopts.IgnoreFields(slurm.PowerResult{}, "Err")

	res, err := c.ApplyPower(ctx, down, slurm.PowerOptions{DryRun: true, MaxNodes: 1})
	want := []slurm.PowerResult{
		{Node: "node1", State: "POWER_DOWN", Outcome: decide.Refused, Detail: "a job holds the node"},
		{Node: "node2", State: "POWER_DOWN", Outcome: decide.DryRun},
		{Node: "node9", State: "POWER_DOWN", Outcome: decide.SkippedGone, Detail: "slurmctld knows no such node"},
	}
	if diff := cmp.Diff(want, res, ignore); err != nil || diff != "" {
		t.Fatalf("dry run: %v (-want +got):\n%s", err, diff)
	}
	if st := nodeState(t, cl, "node2"); !up(st) {
		t.Fatalf("after a dry run node2 is %s", st)
	}

	res, err = c.ApplyPower(ctx, []slurm.NodePower{{Node: "node2"}}, slurm.PowerOptions{MaxNodes: 0})
	if err != nil || len(res) != 1 || res[0].Outcome != decide.Held {
		t.Fatalf("cap 0: %+v, %v; want held", res, err)
	}

	res, err = c.ApplyPower(ctx, down[:2], slurm.PowerOptions{MaxNodes: 1})
	want = []slurm.PowerResult{
		{Node: "node1", State: "POWER_DOWN", Outcome: decide.Refused, Detail: "a job holds the node"},
		{Node: "node2", State: "POWER_DOWN", Outcome: decide.Applied},
	}
	if diff := cmp.Diff(want, res, ignore); err != nil || diff != "" {
		t.Fatalf("power down: %v (-want +got):\n%s", err, diff)
	}
	if st := waitNode(t, cl, "node2", 60*time.Second, func(s string) bool { return strings.Contains(s, "POWERED_DOWN") }); !strings.Contains(st, "POWERED_DOWN") {
		t.Fatalf("node2 is %s 60 s after POWER_DOWN, want POWERED_DOWN", st)
	}
	res, err = c.ApplyPower(ctx, []slurm.NodePower{{Node: "node2"}}, slurm.PowerOptions{MaxNodes: 1})
	if err != nil || len(res) != 1 || res[0].Outcome != decide.Unchanged {
		t.Errorf("powering a powered-down node down again: %+v, %v; want unchanged", res, err)
	}

	res, err = c.ApplyPower(ctx, []slurm.NodePower{{Node: "node2", Up: true}, {Node: "node1", Up: true}},
		slurm.PowerOptions{MaxNodes: 2})
	want = []slurm.PowerResult{
		{Node: "node2", State: "POWER_UP", Outcome: decide.Applied},
		{Node: "node1", State: "POWER_UP", Outcome: decide.Unchanged, Detail: "node is powered"},
	}
	if diff := cmp.Diff(want, res, ignore); err != nil || diff != "" {
		t.Fatalf("power up: %v (-want +got):\n%s", err, diff)
	}
	// Slurm must act on the write and the node must come back: slurmctld
	// runs the bed's ResumeProgram, which starts node2's slurmd. (Two
	// failures under make test's load were the bed's ResumeProgram losing
	// its slurmd to slurmscriptd's kill of the program's process group;
	// the program now starts slurmd in a session of its own.)
	if st := waitNode(t, cl, "node2", 90*time.Second, up); !up(st) {
		logs, _ := cl.Exec("sh", "-c", "tail -n 20 /var/log/slurm/power.log; grep -i 'node2' /var/log/slurm/slurmctld.log | tail -n 10")
		t.Fatalf("node2 is %s 90 s after POWER_UP, want IDLE; power.log and slurmctld.log:\n%s", st, logs)
	}
}
