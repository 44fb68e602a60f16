package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/strata-hpc/strata/planner"
)

// MakePS (issue 24.1): a seeded share of the jobs become PS jobs of the
// catalog; at its request with one server a job runs its trace duration,
// with more servers the planner's model makes it faster; the draw is
// deterministic and share 0 changes nothing.
func TestMakePS(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	if MakePS(tr, 0, 1, 4) != tr {
		t.Error("share 0 changed the trace")
	}
	a, b := MakePS(tr, 0.5, 1, 4), MakePS(tr, 0.5, 1, 4)
	n, faster := 0, 0
	for k, j := range a.Jobs {
		if o := b.Jobs[k]; j.PS != o.PS || j.Model != o.Model || j.Iterations != o.Iterations {
			t.Fatalf("job %d differs between two draws with the same seed", k)
		}
		if !j.PS {
			continue
		}
		n++
		if !slices.Contains(PSModels, j.Model) || j.BatchSize != 64 {
			t.Errorf("job %s: model %s batch %d", j.ID, j.Model, j.BatchSize)
		}
		d, linear := PSSeconds(&j, j.GPUs, 1, 4)
		if linear || math.Abs(d-j.Duration) > 1e-6*j.Duration {
			t.Errorf("job %s (%s): %v s at its request with one server, want its trace's %v s", j.ID, j.Model, d, j.Duration)
		}
		if d2, _ := PSSeconds(&j, j.GPUs, j.GPUs, 4); d2 > d+1e-9 {
			t.Errorf("job %s (%s): %v s with %d servers, more than with one (%v s)", j.ID, j.Model, d2, j.GPUs, d)
		} else if d2 < 0.99*d {
			faster++
		}
	}
	if n < 56 || n > 104 { // 160 jobs, share 0.5
		t.Errorf("%d PS jobs of 160 at share 0.5", n)
	}
	if faster == 0 {
		t.Error("no PS job is faster with P = W servers than with one")
	}
}

// In Slurm mode the servers Strata writes as tasks are what the modelled
// slurmctld allocates: no start of a plan is rejected for want of CPUs,
// every job finishes, and the jobs run with the servers written (their
// tasks beyond their GPUs, as the P = W rule fixes them).
func TestPSWhatIfSlurmMode(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	tr.Jobs = tr.Jobs[:60]
	tr = MakePS(tr, 0.5, 1, 4)
	for _, choice := range []string{"", "w", "1"} {
		cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Scheduler: SchedulerSlurm,
			Truth: Truth{Scaling: readScalingFile(t, "testdata/pollux_scaling.csv")}, Planner: &planner.Options{PSChoice: choice}}
		r, err := RunNamed(context.Background(), cfg, tr, "smd")
		if err != nil {
			t.Fatal(err)
		}
		if r.RejectedStarts != 0 || r.Unfinished != 0 || r.Jobs != len(tr.Jobs) {
			t.Errorf("choice %q: %d rejected starts, %d unfinished, %d of %d jobs done", choice, r.RejectedStarts, r.Unfinished, r.Jobs, len(tr.Jobs))
		}
		t.Logf("choice %q: avg JCT %.0f s over %d jobs", choice, r.AvgJCT, r.Jobs)
	}
}
