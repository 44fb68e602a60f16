package calib_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner/calib"
)

// TestCensoredRunsCount (issue 30): runs stopped at their time limit are
// censored observations, not missing ones. Three users' bert runs took 2×
// the model; two of them were killed at a limit 1.8× the model. Learning
// from completed runs only (before) left the factor to the one user whose
// run completed; with the killed runs as lower bounds the factor stays
// near 2. A censored run below its model says nothing and must not pull
// the factor down.
func TestCensoredRunsCount(t *testing.T) {
	mk := func(i int, real time.Duration, censored bool) calib.Job {
		return calib.Job{End: u0.Add(time.Duration(i) * time.Minute), Model: "bert", GPUType: "t4",
			User: fmt.Sprint("u", i), Modelled: time.Hour, Real: real, Censored: censored}
	}
	for _, tc := range []struct {
		name string
		jobs []calib.Job
		want float64 // 0: no factor
	}{
		{"completed only", []calib.Job{mk(0, 2*time.Hour, false), mk(1, 2*time.Hour, false), mk(2, 2*time.Hour, false)}, 2},
		{"killed runs count as lower bounds", []calib.Job{mk(0, 2*time.Hour, false), mk(1, 108*time.Minute, true), mk(2, 108*time.Minute, true)}, 1.8},
		{"a run stopped early says nothing", []calib.Job{mk(0, 2*time.Hour, false), mk(1, 2*time.Hour, false), mk(2, 2*time.Hour, false),
			mk(3, 10*time.Minute, true)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cal := calib.Fit(tc.jobs, calib.Config{})
			var got float64
			if cal != nil && len(cal.Speed) == 1 {
				got = cal.Speed[0].Factor
			}
			if d := got - tc.want; d > 0.01 || d < -0.01 {
				t.Errorf("factor %v, want %v", got, tc.want)
			}
		})
	}
}
