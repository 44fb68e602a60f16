package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
)

// freshEachPlan plans every snapshot with a new policy: no memo.
type freshEachPlan struct {
	name string
	o    planner.Options
}

func (f freshEachPlan) Plan(ctx context.Context, s *planner.Snapshot) (planner.Plan, error) {
	p, err := planner.NewPolicy(f.name, f.o)
	if err != nil {
		return planner.Plan{}, err
	}
	return p.Plan(ctx, s)
}

// planLog records every plan a policy returns, as JSON.
type planLog struct {
	p     planner.Policy
	plans *[]string
}

func (l planLog) Plan(ctx context.Context, s *planner.Snapshot) (planner.Plan, error) {
	p, err := l.p.Plan(ctx, s)
	b, jerr := json.Marshal(p)
	if jerr != nil {
		return p, jerr
	}
	*l.plans = append(*l.plans, string(b))
	return p, err
}

// TestIncrementalEqualsFromScratch: Slurm mode with every cache Strata's
// cycle keeps (the policy's memo, with the oracle's durations as a
// planner.StablePredictor; decide's Buffers; the admin comments kept
// parsed) plans and writes exactly what deciding each cycle from scratch
// does (a new policy per plan, neither buffers nor comments kept): the
// same plan at every cycle and the same run, job by job, on random
// synthetic traces with users, liars and preemptible jobs, and a Pollux
// trace with scaling curves.
func TestIncrementalEqualsFromScratch(t *testing.T) {
	fixtures := []*Trace{
		readTraceFile(t, filepath.Join("testdata", "alibaba_openb2023_head300.csv")),
		readTraceFile(t, filepath.Join("testdata", "itp_cluster04_head300.csv")),
	}
	type run struct {
		name string
		tr   *Trace
		cfg  Config
	}
	var runs []run
	for seed := uint64(1); seed <= 3; seed++ {
		tr, err := Synthesize(SynthSpec{Jobs: 400, ClusterGPUs: 128, Load: 0.95, MaxGPUs: 16,
			MaxDuration: 2 * 24 * 3600, Seed: seed}, fixtures, fixtures)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{fmt.Sprintf("synth-%d", seed), tr, Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 8, GPUType: "a100"}, JobRows: true}})
	}
	pollux := readTraceFile(t, filepath.Join("testdata", "pollux_workload1.csv"))
	curves := Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}
	cluster := ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}
	runs = append(runs, run{"pollux", pollux, Config{Cluster: cluster, Truth: curves, JobRows: true}})
	// Users who err and lie (their records correct their claims, time
	// limits run out and jobs are resubmitted), every job preemptible.
	for seed := uint64(1); seed <= 3; seed++ {
		tr := RealisticKnowledge(seed).Apply(AssignUsers(pollux, 8))
		tr, _ = MakeDishonest(tr, Honesty{Fraction: 0.3, Factor: 3, Seed: seed})
		runs = append(runs, run{fmt.Sprintf("pollux-users-%d", seed), tr,
			Config{Cluster: cluster, Truth: curves, Preemptible: true, JobRows: true}})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			cfg := r.cfg.withDefaults()
			o := PolicyOptions(cfg, r.tr)
			cfg.popts = &o
			kept, err := planner.NewPolicy("smd", o)
			if err != nil {
				t.Fatal(err)
			}
			var keptPlans, freshPlans []string
			got, err := Run(context.Background(), cfg, r.tr, "smd", planLog{kept, &keptPlans})
			if err != nil {
				t.Fatal(err)
			}
			scratch := cfg
			scratch.fromScratch = true
			want, err := Run(context.Background(), scratch, r.tr, "smd", planLog{freshEachPlan{"smd", o}, &freshPlans})
			if err != nil {
				t.Fatal(err)
			}
			if len(keptPlans) != len(freshPlans) {
				t.Fatalf("%d plans, from scratch %d", len(keptPlans), len(freshPlans))
			}
			for k := range keptPlans {
				if keptPlans[k] != freshPlans[k] {
					t.Fatalf("plan %d differs from the plan from scratch:\n%s", k, cmp.Diff(freshPlans[k], keptPlans[k]))
				}
			}
			got.PlanTime, want.PlanTime = 0, 0
			g, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			w, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(w), string(g)); diff != "" {
				t.Errorf("run differs from the run from scratch (-scratch +kept):\n%s", diff)
			}
			if got.Writes == 0 {
				t.Error("no writes: the comparison shows nothing")
			}
			t.Logf("%d plans, %d writes, %d preemptions, %d resubmits, %d limits lowered", len(keptPlans), got.Writes, got.Preemptions, got.Resubmits, got.LimitsLowered)
		})
	}
}
