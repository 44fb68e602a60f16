package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// The guards follow the nice priority mode: a nice change below the
// hysteresis is dropped, an equal nice is not rewritten, and a job whose
// admin comment shows an absolute priority Strata fixed is always written
// (slurmctld ignores a nice until that priority is released).
func TestNiceHysteresis(t *testing.T) {
	nice := func(n int64) *int64 { return &n }
	o := Options{MaxPerCycle: 10, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1}
	const niceCur = "strata: workers=2 ps=0 rank=3 cycle=7 nice=-500"
	const absCur = "strata: workers=2 ps=0 rank=3 cycle=7"
	type got struct {
		Write bool
		Out   Outcome
		Guard Name
		Nice  *int64
	}
	for _, tc := range []struct {
		name     string
		want     *int64
		jobNice  int64
		admin    string
		expected got
	}{
		{"a new nice is written", nice(-1500), -500, niceCur, got{Write: true, Nice: nice(-1500)}},
		{"a nice within the hysteresis is dropped", nice(-450), -500, niceCur, got{Out: Unchanged, Guard: HystPriority}},
		{"the same nice is not rewritten", nice(-500), -500, niceCur, got{Out: Unchanged}},
		{"an absolute priority of Strata's is released even at the same nice", nice(0), 0, absCur, got{Write: true, Nice: nice(0)}},
		{"the absolute mode writes no nice", nil, -500, niceCur, got{Out: Unchanged}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := planner.Job{ID: 1, State: planner.JobPending, GPUsPerNode: 2, Nodes: 1, Priority: 5000, Nice: tc.jobNice, AdminComment: tc.admin}
			d := planner.Decision{JobID: 1, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 3, Nice: tc.want}
			v := hysteresis(Verdict{Send: d, Write: true}, j, 0, now, o)
			if diff := cmp.Diff(tc.expected, got{v.Write, v.Outcome, v.Guard, v.Send.Nice}); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAdminCommentNice(t *testing.T) {
	for _, tc := range []struct {
		in       Written
		want     string
		absolute bool
	}{
		{Written{Workers: 2, Rank: 1, Cycle: 4, Nice: -2000, NiceSet: true}, "strata: workers=2 ps=0 rank=1 cycle=4 nice=-2000", false},
		{Written{Workers: 2, Rank: 5, Cycle: 4, Writes: 3, NiceSet: true}, "strata: workers=2 ps=0 rank=5 cycle=4 n=3 nice=0", false},
		{Written{Workers: 2, Rank: 1, Cycle: 4}, "strata: workers=2 ps=0 rank=1 cycle=4", true},
		{Written{Workers: 2, Cycle: 4}, "strata: workers=2 ps=0 rank=0 cycle=4", false},
	} {
		s := tc.in.String()
		if s != tc.want {
			t.Errorf("String() = %q, want %q", s, tc.want)
		}
		back, ok := ParseAdminComment("jobstats=x; " + s)
		if !ok {
			t.Fatalf("%q does not parse", s)
		}
		if diff := cmp.Diff(tc.in, back); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", s, diff)
		}
		if back.AbsoluteWritten() != tc.absolute {
			t.Errorf("%q: AbsoluteWritten = %v, want %v", s, back.AbsoluteWritten(), tc.absolute)
		}
	}
}
