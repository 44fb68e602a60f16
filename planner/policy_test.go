package planner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// mixedSnapshot is a small cluster with every kind of job the safety rules
// talk about, varied by seed.
func mixedSnapshot(seed uint64) *planner.Snapshot {
	s := pt.Synthetic(6, 8, 30, seed)
	b := pt.Cluster(s.ID, s.Now).Partition("gpu", true).Partition("small", false).
		Nodes("gpu", 6, 8, 64, 512*1024, "gpu", "a100").Nodes("sm", 3, 4, 32, 128*1024, "small", "t4").
		NodeState("gpu0006", "IDLE", "DRAIN").Pool("bb", 10<<40, 4<<40)
	for _, j := range s.Jobs {
		if j.State == planner.JobRunning {
			b.Running(j.ID, j.GPUs(), j.NodeList[0], j.StartTime)
		} else {
			b.Pending(j.ID, j.GPUs(), j.Comment, pt.Submitted(j.SubmitTime), pt.TimeLimit(j.TimeLimit))
		}
	}
	b.Pending(1001, 2, "strata: gpus=9-2", pt.Submitted(t0.Add(-time.Hour))).
		Pending(1002, 4, "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=1-8 rewrite=no").
		Pending(1003, 16, "strata: gpus=16", pt.InPartition("small")).
		Pending(1004, 2, "strata: model=resnet18 batch=64 epochs=1 samples=1281167 gpus=1-4", pt.BurstBuffer(5<<40, "bb")).
		Pending(1005, 2, "strata: model=resnet18 batch=64 epochs=1 samples=1281167 gpus=1-4", pt.BurstBuffer(5<<40, "bb")).
		Pending(1006, 1, "strata: model=cifar10 batch=512 iters=2000 gpus=1-4", pt.InPartition("small")).
		Pending(1007, 8, "old job", pt.Submitted(t0.Add(-48*time.Hour))).
		Pending(1008, 1, "", pt.InPartition("nowhere")).
		Pending(1009, 0, "strata: gpus=1-4")
	return b.Build()
}

// checkPlan asserts the safety rules and contract invariants of a plan.
func checkPlan(t *testing.T, name string, reshape bool, s *planner.Snapshot, p planner.Plan) {
	t.Helper()
	jobs := map[int64]planner.Job{}
	for _, j := range s.Jobs {
		jobs[j.ID] = j
	}
	nodes := map[string]planner.Node{}
	for _, n := range s.Nodes {
		nodes[n.Name] = n
	}
	seen := map[int64]bool{}
	used := map[string]int{}
	ranks := map[int]bool{}
	var bb int64
	for _, d := range p.Decisions {
		j := jobs[d.JobID]
		if seen[d.JobID] {
			t.Errorf("%s: job %d has two decisions", name, d.JobID)
		}
		seen[d.JobID] = true
		if len(d.Reasons) == 0 {
			t.Errorf("%s: job %d has no reason", name, d.JobID)
		}
		for _, r := range d.Reasons {
			if r.Describe() == string(r) {
				t.Errorf("%s: job %d has undocumented reason %q", name, d.JobID, r)
			}
		}
		h, hasHint, err := planner.ParseHints(j.Comment)
		switch {
		case j.State == planner.JobRunning && d.Action == planner.ActionUpdate:
			t.Errorf("%s: running job %d gets an update", name, d.JobID)
		case j.State == planner.JobPending && (d.Action == planner.ActionPreempt || d.Action == planner.ActionResize):
			t.Errorf("%s: pending job %d gets %s", name, d.JobID, d.Action)
		case !reshape && d.Action == planner.ActionResize:
			t.Errorf("%s: job %d gets %s although the caller cannot resize in place", name, d.JobID, d.Action)
		case !reshape && d.Action == planner.ActionPreempt && !preemptible(j):
			t.Errorf("%s: job %d gets %s although it is not preemptible", name, d.JobID, d.Action)
		case reshape && name == "smd-elastic" && d.Action == planner.ActionPreempt:
			t.Errorf("%s: smd-elastic must never preempt (job %d)", name, d.JobID)
		case reshape && strings.HasPrefix(name, "smd") && name != "smd-elastic" && (d.Action == planner.ActionPreempt || d.Action == planner.ActionResize):
			t.Errorf("%s: smd must never %s in the ideal mode (job %d)", name, d.Action, d.JobID)
		case (err != nil || h.NoRewrite) && d.Action != planner.ActionKeep:
			t.Errorf("%s: job %d with invalid hint or rewrite=no gets %s", name, d.JobID, d.Action)
		}
		if d.Action == planner.ActionUpdate {
			lo, hi := j.GPUs(), j.GPUs()
			if hasHint && err == nil && h.GPUMax > 0 {
				// A site cap may bring the range's minimum down, to the
				// request at the least in these tests.
				lo, hi = min(h.GPUMin, j.GPUs()), h.GPUMax
			}
			if d.Workers < lo || d.Workers > hi {
				t.Errorf("%s: job %d workers %d outside [%d, %d]", name, d.JobID, d.Workers, lo, hi)
			}
			if d.Rank < 1 || ranks[d.Rank] || d.Priority <= 0 && d.Nice == nil { // a priority, or in the nice mode a nice
				t.Errorf("%s: job %d rank %d priority %d (duplicate or missing)", name, d.JobID, d.Rank, d.Priority)
			}
			ranks[d.Rank] = true
		}
		if d.Action == planner.ActionPreempt && !reshape {
			lo, hi := j.GPUs(), j.GPUs()
			if h.GPUMax > 0 {
				lo, hi = h.GPUMin, h.GPUMax
			}
			if d.Workers != 0 && (d.Workers < lo || d.Workers > hi || d.GPUsPerNode*d.NodeCount != d.Workers) {
				t.Errorf("%s: job %d restarts at %d workers (%d×%d), outside [%d, %d]", name, d.JobID, d.Workers, d.GPUsPerNode, d.NodeCount, lo, hi)
			}
			if d.Start {
				t.Errorf("%s: preempted job %d has Start set", name, d.JobID)
			}
		}
		if d.Start {
			if d.GPUsPerNode*d.NodeCount != d.Workers || len(d.Placement) != d.NodeCount {
				t.Errorf("%s: job %d shape %d×%d, %d workers, placement %v", name, d.JobID, d.GPUsPerNode, d.NodeCount, d.Workers, d.Placement)
			}
			for _, n := range d.Placement {
				used[n] += d.GPUsPerNode
				if !nodes[n].Usable() || !containsStr(nodes[n].Partitions, j.Partition) {
					t.Errorf("%s: job %d placed on unusable or foreign node %s", name, d.JobID, n)
				}
			}
			bb += j.BurstBufferBytes
		}
	}
	for _, j := range s.Jobs {
		if j.State == planner.JobPending && !seen[j.ID] {
			t.Errorf("%s: pending job %d has no decision", name, j.ID)
		}
	}
	preemptible := reshape && (strings.HasPrefix(name, "tiresias") || strings.HasPrefix(name, "optimus") || name == "smd-elastic" || name == "andreas-elastic")
	for n, g := range used {
		if free := nodes[n].FreeGPUs(); g > free && !preemptible || g > nodes[n].GPUs {
			t.Errorf("%s: node %s gets %d GPUs, %d free of %d", name, n, g, free, nodes[n].GPUs)
		}
	}
	if bb > 6<<40 {
		t.Errorf("%s: started jobs use %d burst-buffer bytes, 6 TiB free", name, bb)
	}
}

// preemptible is planner.Preemptible without the hints.
func preemptible(j planner.Job) bool {
	ok, _ := planner.Preemptible(&j)
	return ok
}

// preemptibleSnapshot is mixedSnapshot with every other running job opted
// in to preemption (preempt=yes, requeueable) and a range to restart in.
func preemptibleSnapshot(seed uint64) *planner.Snapshot {
	s := mixedSnapshot(seed)
	s.ID += "-preemptible"
	for k := range s.Jobs {
		if j := &s.Jobs[k]; j.State == planner.JobRunning && j.ID%2 == 0 {
			pt.Preemptible(fmt.Sprintf("strata: model=cifar10 batch=2048 iters=%d gpus=1-%d preempt=yes", 2000*j.ID, j.GPUs()))(j)
		}
	}
	return s
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestPolicyProperties(t *testing.T) {
	for _, name := range planner.PolicyNames() {
		for _, reshape := range []bool{false, true} {
			testPolicyProperties(t, name, reshape)
		}
	}
}

func testPolicyProperties(t *testing.T, name string, reshape bool) {
	p, err := planner.NewPolicy(name, planner.Options{Reshape: reshape})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 15; seed++ {
		for _, snap := range []func(uint64) *planner.Snapshot{mixedSnapshot, preemptibleSnapshot} {
			s := snap(seed)
			t.Run(fmt.Sprintf("%s/reshape=%v/%s", name, reshape, s.ID), func(t *testing.T) {
				got, err := p.Plan(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if got.Policy != name || got.SnapshotID != s.ID {
					t.Errorf("plan header %q/%q", got.Policy, got.SnapshotID)
				}
				checkPlan(t, name, reshape, s, got)
				again, _ := p.Plan(context.Background(), snap(seed))
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("not deterministic (-first +second):\n%s", diff)
				}
			})
		}
	}
}

func TestPlanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range planner.PolicyNames() {
		p, _ := planner.NewPolicy(name, planner.Options{})
		if _, err := p.Plan(ctx, mixedSnapshot(1)); err == nil {
			t.Errorf("%s: Plan with a cancelled context returned no error", name)
		}
	}
}

// TestSMDLargeProperties exercises the Lagrangian path (the exact solver
// only takes small islands) under the same invariants.
func TestSMDLargeProperties(t *testing.T) {
	for _, name := range []string{"smd", "smd-elastic"} {
		p, _ := planner.NewPolicy(name, planner.Options{})
		for seed := uint64(1); seed <= 3; seed++ {
			s := pt.Synthetic(64, 8, 600, seed)
			got, err := p.Plan(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, name, false, s, got)
			started := 0
			for _, d := range got.Decisions {
				if d.Start {
					started += d.Workers
				}
			}
			free := 0
			for _, n := range s.Nodes {
				free += n.FreeGPUs()
			}
			// The pending demand far exceeds the free GPUs: a sane plan fills most of them.
			if started < free*3/4 {
				t.Errorf("%s seed %d: started %d GPUs of %d free", name, seed, started, free)
			}
		}
	}
}

func TestEdgeSnapshots(t *testing.T) {
	tests := []struct {
		name string
		snap *planner.Snapshot
		want map[int64]planner.Reason // first reason per job
	}{
		{"empty", pt.Cluster("empty", t0).Build(), map[int64]planner.Reason{}},
		{"all nodes drained", pt.Cluster("drained", t0).Partition("gpu", true).Nodes("n", 1, 4, 8, 1<<15, "gpu", "").
			NodeState("n0001", "DRAIN").Pending(1, 2, "strata: model=cifar10 batch=2048 iters=10 gpus=1-4").Build(),
			map[int64]planner.Reason{1: planner.ReasonNoShapeFits}},
		{"no partitions at all", func() *planner.Snapshot {
			s := pt.Cluster("bare", t0).Pending(1, 1, "").Build()
			s.Jobs[0].Partition = ""
			return s
		}(), map[int64]planner.Reason{1: planner.ReasonPartitionUnknown}},
		{"memory per worker too large", pt.Cluster("mem", t0).Partition("gpu", true).Nodes("n", 2, 4, 8, 1<<15, "gpu", "").
			Pending(1, 2, "strata: model=cifar10 batch=2048 iters=10 gpus=1-4 mem=64G").Build(),
			map[int64]planner.Reason{1: planner.ReasonMemoryInfeasible}},
	}
	for _, tt := range tests {
		for _, name := range []string{"smd", "fifo"} {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				got := map[int64]planner.Reason{}
				for id, d := range plan(t, name, planner.Options{}, tt.snap) {
					got[id] = d.Reasons[0]
				}
				want := tt.want
				if name == "fifo" && tt.name == "memory per worker too large" {
					want = map[int64]planner.Reason{1: planner.ReasonNoShapeFits} // fixed size: the shape itself fails
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}
