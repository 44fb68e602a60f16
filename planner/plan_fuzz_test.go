package planner_test

import (
	"context"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// FuzzPlanHints feeds arbitrary hints (and requests) through every policy
// and checks the plan's safety rules and contract invariants: no panic, a
// decision per pending job, workers inside the user's range, no node
// over-committed, predicted ends after starts, begin times in the future.
// `make fuzz` runs it for FUZZTIME.
func FuzzPlanHints(f *testing.F) {
	for _, s := range []string{
		"strata: params=1 flops=1P batch=1 iters=100M gpus=8",
		"strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=1-4096 weight=1000",
		"strata: model=cifar10 batch=2048 iters=3338 gpus=1-16 arch=ps ps=auto bb=8000P mem=8000P",
		"strata: params=7000000000 flops=1 batch=1 epochs=1 samples=1 gpus=1-8 deadline=2026-11-22T12:00",
		"strata: gpus=4096", "strata: rewrite=no", "strata: model=bert batch=1 iters=1",
	} {
		f.Add(s, uint8(4), uint8(1))
	}
	f.Fuzz(func(t *testing.T, comment string, gpus, nodes uint8) {
		g := int(gpus%16) + 1
		s := pt.Cluster("fuzz", t0).Partition("gpu", true).Nodes("n", 3, 8, 64, 512<<10, "gpu", "").
			Pool("nvme", 4<<40, 1<<40).
			Running(1, 4, "n0001", t0.Add(-time.Hour)).
			Pending(2, 4, "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=1-8").
			Pending(3, g, comment, func(j *planner.Job) { j.Nodes = int(nodes%3) + 1 }).
			Pending(4, 2, "no hint", pt.TimeLimit(time.Hour)).Build()
		for _, name := range planner.PolicyNames() {
			for _, reshape := range []bool{false, true} {
				p, err := planner.NewPolicy(name, planner.Options{Reshape: reshape})
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Plan(context.Background(), s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkPlan(t, name, reshape, s, got)
				for _, d := range got.Decisions {
					if !d.PredictedStart.IsZero() && d.PredictedEnd.Before(d.PredictedStart) {
						t.Errorf("%s: job %d predicted end %v before its start %v", name, d.JobID, d.PredictedEnd, d.PredictedStart)
					}
					if !d.NotBefore.IsZero() && !d.NotBefore.After(s.Now) {
						t.Errorf("%s: job %d begin time %v not after now", name, d.JobID, d.NotBefore)
					}
				}
			}
		}
	})
}
