package planner_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
)

// memoSteps is a sequence of snapshots that change what the smd memo
// caches: time passes (aging), jobs leave and come back, a job's hint,
// time limit and GPU request change, a node is drained, a node moves to
// another partition, and two partitions share a node.
func memoSteps() []*planner.Snapshot {
	base := mixedSnapshot(3)
	clone := func(s *planner.Snapshot) *planner.Snapshot {
		c := *s
		c.Jobs = slices.Clone(s.Jobs)
		c.Nodes = slices.Clone(s.Nodes)
		for i := range c.Nodes {
			c.Nodes[i].State = slices.Clone(c.Nodes[i].State)
		}
		return &c
	}
	later := clone(base)
	later.Now = later.Now.Add(20 * time.Hour)

	changed := clone(later)
	var kept []planner.Job
	edits := 0
	for _, j := range changed.Jobs {
		if j.State == planner.JobPending && j.ID%5 == 0 {
			continue // left the queue
		}
		if j.State == planner.JobPending && j.ID%7 == 0 {
			switch edits % 3 {
			case 0:
				j.Comment = "strata: model=cifar10 batch=512 iters=2000 gpus=1-4"
			case 1:
				j.TimeLimit = 10 * time.Minute
			default:
				j.GPUsPerJob, j.GPUsPerNode = 4, 0
			}
			edits++
		}
		kept = append(kept, j)
	}
	changed.Jobs = kept

	drained := clone(changed)
	drained.Nodes[0].State = append(drained.Nodes[0].State, "DRAIN")
	dup := clone(base) // a job ID twice must not share one cached jobInfo
	for _, j := range base.Jobs {
		if j.State == planner.JobPending && j.Comment != "" {
			j.GPUsPerJob, j.GPUsPerNode = 1, 0
			dup.Jobs = append(dup.Jobs, j)
			break
		}
	}
	// A node moves to the other partition, then the partitions share one
	// (their islands are planned as one group).
	parts := func(s *planner.Snapshot, edit func(p []planner.Partition)) *planner.Snapshot {
		c := clone(s)
		c.Partitions = slices.Clone(s.Partitions)
		for i := range c.Partitions {
			c.Partitions[i].Nodes = slices.Clone(c.Partitions[i].Nodes)
		}
		edit(c.Partitions)
		return c
	}
	moved := parts(base, func(p []planner.Partition) {
		last := p[0].Nodes[len(p[0].Nodes)-1]
		p[0].Nodes = p[0].Nodes[:len(p[0].Nodes)-1]
		p[1].Nodes = append(p[1].Nodes, last)
	})
	shared := parts(later, func(p []planner.Partition) { p[1].Nodes = append(p[1].Nodes, p[0].Nodes[0]) })
	return []*planner.Snapshot{base, base, later, changed, drained, dup, base, moved, shared, shared, base}
}

// TestMemoIsTransparent plans a sequence of snapshots with one policy
// instance (whose memo carries over) and with a fresh instance per
// snapshot: the plans must be equal, and stay equal while the policy
// plans on. The predictor's answers change at every step, so cached
// predictions would show.
func TestMemoIsTransparent(t *testing.T) {
	for _, name := range []string{"smd", "smd-elastic", "fifo", "sjf", "qssf", "edf", "priority", "andreas", "andreas-elastic", "tiresias", "optimus"} {
		t.Run(name, func(t *testing.T) {
			step := 0
			o := planner.Options{Predictor: planner.PredictorFunc(func(j *planner.Job, gpus int) (time.Duration, bool) {
				return time.Duration(int64(step+1)*j.ID%97+int64(gpus)) * time.Minute, true
			})}
			kept, err := planner.NewPolicy(name, o)
			if err != nil {
				t.Fatal(err)
			}
			var gots, wants []planner.Plan
			for k, s := range memoSteps() {
				step = k
				got, err := kept.Plan(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				want := freshPlan(t, name, o, s)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("step %d: plan with a carried-over memo differs (-fresh +kept):\n%s", k, diff)
				}
				gots, wants = append(gots, got), append(wants, want)
			}
			// A plan returned stays as it was while the policy plans on
			// (its buffers are reused, never what a plan refers to).
			for k := range gots {
				if diff := cmp.Diff(wants[k], gots[k]); diff != "" {
					t.Errorf("step %d: plan changed by later plans (-then +now):\n%s", k, diff)
				}
			}
		})
	}
}

// freshPlan is the plan of s by a new policy name (no memo): what a policy
// that keeps its memo must return.
func freshPlan(t *testing.T, name string, o planner.Options, s *planner.Snapshot) planner.Plan {
	t.Helper()
	fresh, err := planner.NewPolicy(name, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := fresh.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
