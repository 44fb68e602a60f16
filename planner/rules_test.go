package planner_test

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// TestRules pins the shared predicates (issue 33.2). Before, the planner
// let a running job without a start time be preempted while the guard
// held it (min_run_before_preempt): one rule, two answers.
func TestRules(t *testing.T) {
	now := t0
	run := func(started time.Duration) *planner.Job {
		j := &planner.Job{State: planner.JobRunning, GPUsPerJob: 4}
		if started > 0 {
			j.StartTime = now.Add(-started)
		}
		return j
	}
	for _, tc := range []struct {
		name   string
		j      *planner.Job
		minRun time.Duration
		want   bool
	}{
		{"no start time: never", run(0), 0, false},
		{"no minimum", run(time.Minute), 0, true},
		{"negative: no minimum", run(time.Minute), -1, true},
		{"too soon", run(5 * time.Minute), 10 * time.Minute, false},
		{"long enough", run(10 * time.Minute), 10 * time.Minute, true},
	} {
		if got := planner.RanLongEnough(tc.j, now, tc.minRun); got != tc.want {
			t.Errorf("RanLongEnough %s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := planner.DisturbedGPUHours(run(90*time.Minute), now); got != 6 {
		t.Errorf("DisturbedGPUHours: %v, want 6 (4 GPUs × 1.5 h)", got)
	}
	if got := planner.DisturbedGPUHours(&planner.Job{State: planner.JobPending, GPUsPerJob: 4}, now); got != 0 {
		t.Errorf("DisturbedGPUHours of a pending job: %v", got)
	}
	for _, tc := range []struct {
		cur, prop time.Duration
		want      bool
	}{
		{2 * time.Hour, time.Hour, true},
		{time.Hour, 2 * time.Hour, false},        // never raised
		{0, time.Hour, false},                    // an unknown limit is left alone
		{2 * time.Hour, 5 * time.Minute, false},  // never under MinBoundLimit
		{2 * time.Hour, 0, false},                // nothing proposed
		{time.Hour, planner.MinBoundLimit, true}, // the least bound
		{planner.MinBoundLimit, planner.MinBoundLimit, false},
	} {
		if got := planner.LowersLimit(tc.cur, tc.prop); got != tc.want {
			t.Errorf("LowersLimit(%v, %v) = %v, want %v", tc.cur, tc.prop, got, tc.want)
		}
	}
	if planner.ChangesPartition("gpu", "") || planner.ChangesPartition("gpu", "gpu") || !planner.ChangesPartition("gpu", "gpua") {
		t.Error("ChangesPartition")
	}
}

// MinSize: the request where the site keeps requests and it lies in the
// range, else the range's low end.
func TestMinSize(t *testing.T) {
	keep, shrink := &planner.Options{KeepRequest: true}, &planner.Options{}
	for _, tc := range []struct {
		o                 *planner.Options
		req, lo, hi, want int
	}{
		{keep, 4, 1, 8, 4}, {shrink, 4, 1, 8, 1}, {keep, 0, 1, 8, 1}, {keep, 16, 1, 8, 1}, {keep, 1, 2, 8, 2},
	} {
		if got := planner.MinSize(tc.o, tc.req, tc.lo, tc.hi); got != tc.want {
			t.Errorf("MinSize(keep %v, req %d, %d-%d) = %d, want %d", tc.o.KeepRequest, tc.req, tc.lo, tc.hi, got, tc.want)
		}
	}
}
