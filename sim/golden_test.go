package sim

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// goldenPolicies are pinned by the golden file: the simple baselines, whose
// plans should not change when the planner's tuned policies (smd, optimus,
// tiresias) are improved; those are checked by TestPoliciesAreApplicable.
var goldenPolicies = []string{"fifo", "sjf"}

// tinyReport runs the policies on the tiny trace (4 nodes × 4 T4, Pollux
// curves for cifar10 and ncf) and renders the --json document.
func tinyReport(t *testing.T, policies []string, extra ...planner.Policy) ([]byte, *Report) {
	t.Helper()
	f, err := os.Open("testdata/tiny.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadTrace(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ParseCluster("4x4:t4")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scheduler: SchedulerIdeal, Cluster: cs, Truth: Truth{Scaling: readScalingFile(t, "testdata/tiny_scaling.csv")}}
	rep := &Report{Trace: "testdata/tiny.csv", Cluster: cs.String(), IntervalS: 60,
		TraceJobs: len(tr.Jobs), Published: Published(tr)}
	for _, name := range policies {
		r, err := RunNamed(context.Background(), cfg, tr, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep.Results = append(rep.Results, r)
	}
	for n, p := range extra {
		r, err := Run(context.Background(), cfg, tr, fmt.Sprintf("test-policy-%d", n+1), p)
		if err != nil {
			t.Fatal(err)
		}
		rep.Results = append(rep.Results, r)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rep
}

// TestGoldenTiny pins the simulator's summary of the baseline policies and
// of an in-test greedy policy on the tiny trace.
// Regenerate with: go test ./sim -run Golden -update
func TestGoldenTiny(t *testing.T) {
	half := greedy{want: func(j *planner.Job) int { return max(1, j.GPUs()/2) }} // elastic starts
	got, _ := tinyReport(t, goldenPolicies, greedy{}, half)
	const golden = "testdata/tiny.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("summary differs from %s (-want +got); if intended, rerun with -update:\n%s", golden, diff)
	}
}

// TestDeterministic: the same inputs give byte-identical JSON.
func TestDeterministic(t *testing.T) {
	a, _ := tinyReport(t, planner.PolicyNames())
	b, _ := tinyReport(t, planner.PolicyNames())
	if !bytes.Equal(a, b) {
		t.Errorf("two runs differ:\n%s", cmp.Diff(string(a), string(b)))
	}
}

// TestPoliciesAreApplicable fails on policy bugs the simulator can see:
// a preempt/resize from a policy held to production honesty (smd, fifo,
// ...), decisions whose shape does not fit, and jobs left unfinished.
func TestPoliciesAreApplicable(t *testing.T) {
	_, rep := tinyReport(t, planner.PolicyNames())
	for _, r := range rep.Results {
		if r.HonestyViolations > 0 {
			t.Errorf("%s: %d preempt/resize decisions, but it may only shape pending jobs", r.Policy, r.HonestyViolations)
		}
		if !MayReshape(r.Policy) && r.Preemptions+r.Resizes > 0 {
			t.Errorf("%s: simulator applied %d preemptions and %d resizes to an honest policy", r.Policy, r.Preemptions, r.Resizes)
		}
		if r.RejectedStarts+r.RejectedResizes+r.UnknownJobs > 0 {
			t.Errorf("%s: %d starts, %d resizes and %d decisions for unknown jobs could not be applied",
				r.Policy, r.RejectedStarts, r.RejectedResizes, r.UnknownJobs)
		}
		if r.Jobs != rep.TraceJobs || r.Unfinished > 0 {
			t.Errorf("%s: %d of %d jobs finished (%d unfinished)", r.Policy, r.Jobs, rep.TraceJobs, r.Unfinished)
		}
	}
}

// TestSkipUnchanged: for fifo and sjf with aging off (a job crossing the
// starvation limit changes the plan with no change in the cluster), asking
// for a plan only when the cluster changed gives the same results as
// asking at every tick, on the tiny trace and on the first Pollux workload.
func TestSkipUnchanged(t *testing.T) {
	runs := []struct {
		name, trace, scaling string
		cluster              ClusterSpec
	}{
		{"tiny", "testdata/tiny.csv", "testdata/tiny_scaling.csv", ClusterSpec{Nodes: 4, GPUsPerNode: 4, GPUType: "t4"}},
		{"pollux_workload1", "testdata/pollux_workload1.csv", "testdata/pollux_scaling.csv", ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}},
	}
	for _, rn := range runs {
		name, cluster := rn.name, rn.cluster
		t.Logf("trace %s", name)
		sc := readScalingFile(t, rn.scaling)
		tr := readTraceFile(t, rn.trace)
		for _, policy := range []string{"fifo", "sjf"} {
			var got [2]*Result
			for n, skip := range []bool{true, false} {
				never := 100000 * time.Hour
				cfg := Config{Scheduler: SchedulerIdeal, Cluster: cluster, Truth: Truth{Scaling: sc}, SkipUnchanged: skip,
					Planner: &planner.Options{StarvationAge: never, StarvationMaxWait: never}}
				r, err := RunNamed(context.Background(), cfg, tr, policy)
				if err != nil {
					t.Fatal(err)
				}
				r.PlanCalls, r.PlanTime, r.Series = 0, 0, nil
				got[n] = r
			}
			if diff := cmp.Diff(got[1], got[0], cmpopts.IgnoreUnexported(Result{}), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("%s %s: skipping unchanged ticks changes the result (-every tick +skipping):\n%s", name, policy, diff)
			}
		}
	}
}
