package sim

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SynthDeadlines is a pure function of its inputs and the seed; every
// deadline lies in [submit + t_min, submit + 3·t_min] and every tardiness
// weight in [0.003, 0.015].
func TestSynthDeadlines(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	truth := Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}
	tests := []struct {
		name  string
		seed  uint64
		r     HintRange
		gpus  int
		equal bool // the same draws as seed 1 with the default range
	}{
		{name: "seed 1", seed: 1, gpus: 64, equal: true},
		{name: "seed 2", seed: 2, gpus: 64},
		{name: "users allow 2x", seed: 1, r: HintRange{MaxFactor: 2}, gpus: 64},
		// The cluster caps only the ranges of jobs too large for it (which
		// are dropped): the same draws.
		{name: "small cluster", seed: 1, gpus: 8, equal: true},
	}
	ref := SynthDeadlines(tr, 1, truth, HintRange{}, 64)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := SynthDeadlines(tr, tc.seed, truth, tc.r, tc.gpus)
			b := SynthDeadlines(tr, tc.seed, truth, tc.r, tc.gpus)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Fatalf("same seed, different traces (-a +b):\n%s", diff)
			}
			if same := cmp.Equal(a, ref); same != tc.equal {
				t.Errorf("equal to seed 1's = %v, want %v", same, tc.equal)
			}
			for i, j := range a.Jobs {
				if tr.Jobs[i].Deadline != 0 {
					t.Fatal("the input trace was changed")
				}
				tmin := FastestRun(truth, tc.r, &j, tc.gpus)
				if tmin <= 0 || tmin > j.Duration {
					t.Errorf("job %s: t_min %v not in (0, duration %v]", j.ID, tmin, j.Duration)
				}
				if lo, hi := j.Submit+tmin, j.Submit+3*tmin; j.Deadline < lo || j.Deadline > hi {
					t.Errorf("job %s: deadline %v not in [%v, %v]", j.ID, j.Deadline, lo, hi)
				}
				if w := j.TardinessWeight; w < 0.003 || w > 0.015 {
					t.Errorf("job %s: tardiness weight %v not in [0.003, 0.015]", j.ID, w)
				}
			}
		})
	}
}

// The cost terms of a run add up, in money and in the planner's units, and
// agree with the jobs' own ends and deadlines.
func TestCostTermsAddUp(t *testing.T) {
	truth := Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}
	cs := ClusterSpec{Nodes: 4, GPUsPerNode: 4, GPUType: "t4"}
	tr := SynthDeadlines(readTraceFile(t, "testdata/pollux_workload1.csv"), 3, truth, HintRange{}, cs.TotalGPUs())
	for _, sched := range []string{SchedulerSlurm, SchedulerIdeal} {
		for _, policy := range []string{"fifo", "edf", "andreas"} {
			t.Run(sched+"/"+policy, func(t *testing.T) {
				cfg := Config{Scheduler: sched, Cluster: cs, Truth: truth, EnergyPrice: 0.3, JobRows: true}
				r, err := RunNamed(context.Background(), cfg, tr, policy)
				if err != nil {
					t.Fatal(err)
				}
				c := r.Cost
				if c == nil {
					t.Fatal("no cost terms")
				}
				var late, cost, wjct float64
				missed := 0
				for k, row := range r.JobRows {
					j := tr.Jobs[k]
					if row.ID != j.ID {
						t.Fatalf("row %d is job %s, want %s", k, row.ID, j.ID)
					}
					if row.State == "dropped" {
						continue
					}
					if row.State != "done" {
						missed++
						continue
					}
					wjct += *row.JCT * j.TardinessWeight / MeanTardinessWeight
					if d := *row.End - j.Deadline; d > 0 {
						missed++
						late += d
						cost += d * j.TardinessWeight
					}
				}
				near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }
				got := []float64{c.EnergyCost, c.Cost, c.Objective, c.Tardiness, c.TardinessCost, c.WeightedJCT}
				want := []float64{r.EnergyKWh * 0.3, c.EnergyCost + c.TardinessCost, c.WeightedJCT + c.Cost/MeanTardinessWeight,
					late, cost, wjct}
				for k := range got {
					if !near(got[k], want[k], 1e-3) {
						t.Errorf("term %d = %v, want %v", k, got[k], want[k])
					}
				}
				if c.Missed != missed || c.DeadlineJobs != len(tr.Jobs)-r.Dropped {
					t.Errorf("missed %d of %d, want %d of %d", c.Missed, c.DeadlineJobs, missed, len(tr.Jobs)-r.Dropped)
				}
				if !near(c.MissRate, float64(missed)/float64(c.DeadlineJobs), 1e-3) {
					t.Errorf("miss rate %v", c.MissRate)
				}
			})
		}
	}
}

// andreas-elastic re-plans running jobs in the ideal mode; every decision
// it makes must be one the simulator can apply.
func TestAndreasElasticApplies(t *testing.T) {
	truth := Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}
	cs := ClusterSpec{Nodes: 4, GPUsPerNode: 4, GPUType: "t4"}
	tr := SynthDeadlines(readTraceFile(t, "testdata/pollux_workload1.csv"), 1, truth, HintRange{}, cs.TotalGPUs())
	r, err := RunNamed(context.Background(), Config{Scheduler: SchedulerIdeal, Cluster: cs, Truth: truth}, tr, "andreas-elastic")
	if err != nil {
		t.Fatal(err)
	}
	if r.HonestyViolations+r.RejectedStarts+r.RejectedResizes+r.UnknownJobs+r.Unfinished > 0 {
		t.Errorf("anomalies: %s", flags(r))
	}
	if r.Preemptions+r.Resizes == 0 {
		t.Error("no running job was re-planned")
	}
	t.Logf("%d jobs, %d preemptions, %d resizes, cost %.2f", r.Jobs, r.Preemptions, r.Resizes, r.Cost.Cost)
}
