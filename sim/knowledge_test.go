package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRealisticKnowledgeDeterministic: the same seed draws the same
// errors, hints and limits; another seed others. Every limit is at least
// the run time and is a popular value (or the maximum); about a quarter
// of the jobs carry no hint; the hints' errors average about 12 %.
func TestRealisticKnowledgeDeterministic(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	k := RealisticKnowledge(1)
	a, b, c := k.Apply(tr), RealisticKnowledge(1).Apply(tr), RealisticKnowledge(2).Apply(tr)
	if d := cmp.Diff(a.Jobs, b.Jobs); d != "" {
		t.Fatalf("seed 1 twice (-first +second):\n%s", d)
	}
	if cmp.Equal(a.Jobs, c.Jobs) {
		t.Error("seeds 1 and 2 drew the same knowledge")
	}
	if tr.Jobs[0].TimeLimit != 0 || tr.Jobs[0].ClaimScale != 0 {
		t.Error("Apply changed its input")
	}
	var noHint, maxed int
	var absErr float64
	for i, j := range a.Jobs {
		if j.Duration != tr.Jobs[i].Duration {
			t.Fatalf("job %s: true duration changed", j.ID)
		}
		if j.TimeLimit < j.Duration {
			t.Errorf("job %s: limit %v below its run time %v", j.ID, j.TimeLimit, j.Duration)
		}
		popular := slices.ContainsFunc(k.LimitValues, func(v time.Duration) bool { return v.Seconds() == j.TimeLimit })
		if !popular && j.TimeLimit != math.Max(60, math.Ceil(j.Duration/60)*60) {
			t.Errorf("job %s: limit %v s is neither a popular value nor its run time in minutes", j.ID, j.TimeLimit)
		}
		if j.TimeLimit == k.MaxLimit.Seconds() {
			maxed++
		}
		if j.NoHint {
			noHint++
		}
		absErr += math.Abs(j.ClaimScale - 1)
	}
	n := float64(len(a.Jobs))
	if f := float64(noHint) / n; f < 0.15 || f > 0.35 {
		t.Errorf("%.2f of the jobs without a hint, want about 0.25", f)
	}
	if f := float64(maxed) / n; f < 0.12 || f > 0.3 {
		t.Errorf("%.2f of the jobs at the maximum limit, want about 0.2 (plus the few whose popular value it is)", f)
	}
	if e := absErr / n; e < 0.08 || e > 0.16 {
		t.Errorf("mean |hint error| %.3f, want about 0.12", e)
	}
}
