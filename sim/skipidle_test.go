package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner"
)

// randomSlurmCase is one random Slurm-mode run: a trace, a cluster,
// whether every job opts in to preemption, and whether the policies time
// jobs from the history of the run and get its online calibration.
type randomSlurmCase struct {
	name        string
	tr          *Trace
	cluster     ClusterSpec
	truth       Truth
	preemptible bool
	history     bool
	calibrate   bool
}

// randomSlurmCases draws n runs from seed: traces resampled from the
// Alibaba and ITP fixtures (no hints) at loads from 0.3 (an often empty
// queue) to 1.5 (a long one), and random subsets of the first Pollux
// workload (models, scaling curves, hints; half the time with its
// burst-buffer stage-ins and a pool) with their arrivals stretched or
// squeezed, on 1 to 6 nodes of 4 or 8 GPUs.
func randomSlurmCases(t *testing.T, seed uint64, n int) []randomSlurmCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 35))
	fixtures := []*Trace{
		readTraceFile(t, "testdata/alibaba_openb2023_head300.csv"),
		readTraceFile(t, "testdata/itp_cluster04_head300.csv"),
	}
	pollux := []*Trace{readTraceFile(t, "testdata/pollux_workload1.csv"), readTraceFile(t, "testdata/pollux_workload1_bb.csv")}
	scaling := readScalingFile(t, "testdata/pollux_scaling.csv")
	var out []randomSlurmCase
	for k := range n {
		c := randomSlurmCase{cluster: ClusterSpec{Nodes: 1 + rng.IntN(6), GPUsPerNode: 4 << rng.IntN(2), GPUType: "t4"},
			preemptible: rng.IntN(2) == 0, history: rng.IntN(3) == 0, calibrate: rng.IntN(3) == 0}
		gpus := c.cluster.Nodes * c.cluster.GPUsPerNode
		if k%2 == 0 {
			load := 0.3 + 1.2*rng.Float64()
			tr, err := Synthesize(SynthSpec{Jobs: 20 + rng.IntN(40), ClusterGPUs: gpus, Load: load, MaxGPUs: gpus,
				MaxDuration: 4 * 3600, Seed: rng.Uint64()}, fixtures, fixtures)
			if err != nil {
				t.Fatal(err)
			}
			c.tr, c.name = tr, fmt.Sprintf("synth-%d/load%.2f", k, load)
		} else {
			stretch := 0.2 + 2*rng.Float64()
			tr, bb := &Trace{}, rng.IntN(2)
			if bb == 1 {
				c.cluster.BurstBufferBytes, c.cluster.BurstBufferBps = 64<<30, 1<<30
			}
			for _, j := range pollux[bb].Jobs {
				if j.GPUs <= gpus && rng.IntN(4) == 0 {
					j.Submit *= stretch
					tr.Jobs = append(tr.Jobs, j)
				}
			}
			c.tr, c.truth, c.name = tr, Truth{Scaling: scaling}, fmt.Sprintf("pollux-%d/stretch%.2f", k, stretch)
		}
		c.name += fmt.Sprintf("/%dx%d", c.cluster.Nodes, c.cluster.GPUsPerNode)
		for _, f := range []struct {
			on   bool
			name string
		}{{c.cluster.BurstBufferBytes > 0, "bb"}, {c.preemptible, "preemptible"}, {c.history, "history"}, {c.calibrate, "calibrate"}} {
			if f.on {
				c.name += "/" + f.name
			}
		}
		out = append(out, c)
	}
	return out
}

// TestSkipIdleCycles is the randomized comparison of Slurm mode's skipped
// cycles (nothingToWrite) with planning every cycle from scratch: on
// random traces, clusters, burst-buffer pools, preemption opt-ins,
// predictors and calibration, every policy gives the
// same result, job by job, either way; only the plans counted differ, and
// some cycles were skipped (the comparison tested something).
func TestSkipIdleCycles(t *testing.T) {
	n := 16
	if testing.Short() {
		n = 4
	}
	skipped := 0
	for _, c := range randomSlurmCases(t, 1, n) {
		for _, policy := range planner.PolicyNames() {
			var got [2]*Result
			for k, full := range []bool{true, false} {
				cfg := Config{Scheduler: SchedulerSlurm, Cluster: c.cluster, Truth: c.truth, Preemptible: c.preemptible,
					Calibrate: c.calibrate, JobRows: true, planIdle: full}
				if c.history {
					cfg.Predictor = PredictorHistory
				}
				r, err := RunNamed(context.Background(), cfg, c.tr, policy)
				if err != nil {
					t.Fatalf("%s %s: %v", c.name, policy, err)
				}
				got[k] = r
			}
			skipped += got[0].PlanCalls - got[1].PlanCalls
			for _, r := range got {
				r.PlanCalls, r.PlanTime = 0, 0
			}
			if diff := cmp.Diff(got[0], got[1], cmpopts.IgnoreUnexported(Result{})); diff != "" {
				t.Errorf("%s %s: skipping idle cycles changes the result (-every cycle +skipping):\n%s", c.name, policy, diff)
			}
		}
	}
	if skipped == 0 {
		t.Error("no cycle was skipped: nothing compared")
	}
	t.Logf("%d cycles skipped", skipped)
}
