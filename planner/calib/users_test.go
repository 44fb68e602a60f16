package calib_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner/calib"
	"github.com/strata-hpc/strata/planner/trust"
)

var u0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestOneLiarDoesNotMoveTheFactor is the example: five accurate
// resnet50 jobs give factor 1; six jobs of one user hinting 7 ms that ran
// 10 h made it 4 (the clip) when every job was a vote. With one vote per
// user the liar alone cannot move it, and a liar whose own record is
// distrusted has no vote at all.
func TestOneLiarDoesNotMoveTheFactor(t *testing.T) {
	mk := func(i int, user string, modelled, real time.Duration) calib.Job {
		return calib.Job{End: u0.Add(time.Duration(i) * time.Minute), Model: "resnet50", GPUType: "a100",
			User: user, Modelled: modelled, Real: real}
	}
	var liar []calib.Job
	var liarOut []trust.Outcome
	for i := range 6 {
		liar = append(liar, mk(100+i, "mallory", 7*time.Millisecond, 10*time.Hour))
		liarOut = append(liarOut, trust.Outcome{User: "mallory", JobID: int64(100 + i), End: u0.Add(time.Duration(100+i) * time.Minute),
			Predicted: 7 * time.Millisecond, Real: 10 * time.Hour, TimedOut: true})
	}
	oneHonest, fiveHonest := []calib.Job{}, []calib.Job{}
	var honestOut []trust.Outcome
	for i := range 5 {
		oneHonest = append(oneHonest, mk(i, "alice", time.Hour, time.Hour+time.Duration(i)*time.Minute))
		fiveHonest = append(fiveHonest, mk(i, fmt.Sprint("user", i), time.Hour, time.Hour+time.Duration(i)*time.Minute))
		honestOut = append(honestOut, trust.Outcome{User: "alice", JobID: int64(i), End: u0.Add(time.Duration(i) * time.Minute),
			Predicted: time.Hour, Real: time.Hour + time.Duration(i)*time.Minute})
	}
	excl := trust.Unreliable(trust.Fit(append(liarOut, honestOut...), trust.Config{}))
	if !excl["mallory"] || excl["alice"] {
		t.Fatalf("unreliable users %v: want mallory only", excl)
	}
	for _, tt := range []struct {
		name string
		jobs []calib.Job
		cfg  calib.Config
	}{
		{"five users, one vote each", append(append([]calib.Job{}, fiveHonest...), liar...), calib.Config{}},
		{"one honest user, the liar left out by his record", append(append([]calib.Job{}, oneHonest...), liar...), calib.Config{Exclude: excl}},
		{"five users and the liar left out", append(append([]calib.Job{}, fiveHonest...), liar...), calib.Config{Exclude: excl}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cal := calib.Fit(tt.jobs, tt.cfg)
			if cal == nil || len(cal.Speed) != 1 {
				t.Fatalf("calibration %+v: want one speed factor", cal)
			}
			if f := cal.Speed[0].Factor; f < 0.95 || f > 1.1 {
				t.Errorf("resnet50 factor %.3g, want ~1 (the liar moved it)", f)
			}
		})
	}
}
