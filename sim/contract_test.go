package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// clone copies the engine's job and cluster state (what a scheduling pass
// changes), so that a pass can be tried without touching the run.
func (e *engine) clone() *engine {
	c := *e
	c.jobs = slices.Clone(e.jobs)
	for i := range c.jobs {
		c.jobs[i].slots = slices.Clone(e.jobs[i].slots)
	}
	cl := *e.cl
	cl.nodes = slices.Clone(e.cl.nodes)
	for n := range cl.nodes {
		cl.nodes[n].owner = slices.Clone(e.cl.nodes[n].owner)
	}
	c.cl = &cl
	c.pending, c.running = slices.Clone(e.pending), slices.Clone(e.running)
	return &c
}

// TestContract is the contract of docs/planner.md ("What Strata writes, and
// what Slurm then does") in the absolute priority mode, checked at every cycle of whole runs: right after
// Strata's writes, the jobs slurmctld starts (a full main pass, then a
// backfill cycle, on a copy of the state) are exactly the jobs the plan
// starts. Every policy, on the tiny trace and on Pollux workload 1 (in
// testdata), with guards that let every write through; and again with
// every job preemptible (a preempted job keeps its GPUs until it has
// checkpointed, so the plan starts no job on them); and with synthetic
// deadlines for the policies that read them.
func TestContract(t *testing.T) {
	traces := map[string]string{"tiny": "testdata/tiny.csv"}
	if _, err := os.Stat(filepath.Join("testdata", "pollux_workload1.csv")); err == nil {
		traces["pollux1"] = filepath.Join("testdata", "pollux_workload1.csv")
	}
	open := decide.Options{MaxPerCycle: 1 << 30, MaxPerJob: 1 << 30}
	open.MinRunBeforePreempt, open.MaxPreemptPerDay, open.MaxDisturbedGPUHours = 10*time.Minute, 2, 1e9
	for name, path := range traces {
		tr := readTraceFile(t, path)
		for _, policy := range planner.PolicyNames() {
			for _, preemptible := range []bool{false, true} {
				testContract(t, tr, name, policy, preemptible, &open)
			}
		}
		// With deadlines and weights in every hint (--synth-deadlines),
		// for the policies that read them.
		dl := SynthDeadlines(tr, 1, Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}, HintRange{}, 16)
		for _, policy := range []string{"edf", "priority", "andreas", "smd"} {
			testContract(t, dl, name+"/deadlines", policy, false, &open)
		}
	}
}

func testContract(t *testing.T, tr *Trace, name, policy string, preemptible bool, open *decide.Options) {
	if preemptible {
		name += "/preemptible"
	}
	{
		{
			t.Run(name+"/"+policy, func(t *testing.T) {
				cfg := Config{Scheduler: SchedulerSlurm, Cluster: ClusterSpec{Nodes: 4, GPUsPerNode: 4, GPUType: "t4"}, Preemptible: preemptible,
					Guard: open, Truth: Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}}.withDefaults()
				// The contract is the absolute mode's: in the nice mode (the
				// default) Slurm's own factors may reorder what Strata nudged.
				abs := planner.SiteDefaults()
				abs.PriorityMode = planner.PriorityAbsolute
				cfg.Planner = &abs
				p, err := planner.NewPolicy(policy, PolicyOptions(cfg, tr))
				if err != nil {
					t.Fatal(err)
				}
				e := newEngine(cfg, tr, policy, p)
				cycles, bad, deferred, starts := 0, 0, 0, 0
				e.afterWrites = func(s *slurmState, now float64, pl planner.Plan) {
					cycles++
					want := map[int64]bool{}
					for _, d := range pl.Decisions {
						if d.Start && d.Action == planner.ActionUpdate {
							want[d.JobID] = true
						}
						if !d.NotBefore.IsZero() {
							deferred++
						}
					}
					starts += len(want)
					c := e.clone()
					c.afterWrites = nil
					cs := *s
					c.mainPass(&cs, now, 0)
					c.backfill(&cs, now)
					got := map[int64]bool{}
					for _, i := range c.running {
						if e.jobs[i].phase == phasePending {
							got[int64(i+1)] = true
						}
					}
					if fmt.Sprint(sortedKeys(want)) != fmt.Sprint(sortedKeys(got)) {
						bad++
						if bad <= 3 {
							t.Errorf("t=%.0f: the plan starts %v, Slurm would start %v", now, sortedKeys(want), sortedKeys(got))
						}
					}
				}
				if err := e.slurmLoop(context.Background()); err != nil {
					t.Fatal(err)
				}
				if bad > 0 {
					t.Errorf("%d of %d cycles broke the contract", bad, cycles)
				}
				if cycles == 0 || starts == 0 {
					t.Errorf("%d cycles checked, %d starts: nothing tested", cycles, starts)
				}
				r := e.result()
				if r.HonestyViolations > 0 {
					t.Errorf("%d preempt or resize decisions the policy may not make", r.HonestyViolations)
				}
				t.Logf("%d cycles, %d planned starts, %d deferrals, %d restarts: all as Slurm would start them", cycles, starts, deferred, r.Restarts)
			})
		}
	}
}

func sortedKeys(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
