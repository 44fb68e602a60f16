package planner

import "time"

// The rules the planner, the writer's guards (package decide), the writer
// (package slurm) and the simulator all apply, each written once here
// (issue 33): one predicate, called by all of them.

// PreemptWindow is the period the daily preemption cap
// (Options.MaxPreemptPerDay) counts a job's preemptions over.
const PreemptWindow = 24 * time.Hour

// RanLongEnough reports whether running job j has run at least minRun
// since its last start at now, so that it may be preempted; minRun ≤ 0
// means no minimum. A job without a start time has not: how long it ran
// is unknown, and a preemption that cannot be justified is not proposed.
func RanLongEnough(j *Job, now time.Time, minRun time.Duration) bool {
	if j.StartTime.IsZero() {
		return false
	}
	return minRun <= 0 || now.Sub(j.StartTime) >= minRun
}

// DisturbedGPUHours is what preempting running job j at now disturbs: its
// GPUs × the hours it has run since it last started (the running work that
// rides on its checkpoint). 0 for a job that is not running.
func DisturbedGPUHours(j *Job, now time.Time) float64 {
	if j == nil || j.State != JobRunning || j.StartTime.IsZero() || !now.After(j.StartTime) {
		return 0
	}
	return float64(j.GPUs()) * now.Sub(j.StartTime).Hours()
}

// LowersLimit reports whether writing time limit proposed to a job whose
// limit is current may go ahead: Strata only ever lowers a known limit,
// never under MinBoundLimit, never raises one.
func LowersLimit(current, proposed time.Duration) bool {
	return proposed >= MinBoundLimit && current > 0 && proposed < current
}

// ChangesPartition reports whether a decision's partition (proposed; ""
// = none) moves a job that is in current.
func ChangesPartition(current, proposed string) bool {
	return proposed != "" && proposed != current
}

// MinSize is the fewest GPUs a pending job asking for req may be planned
// on within a range lo–hi: its request where the site keeps requests
// (Options.KeepRequest) and the request is in the range, else lo. The
// planner (smd, andreas) and hint check call it.
func MinSize(o *Options, req, lo, hi int) int {
	if o.KeepRequest && req > lo && req <= hi {
		return req
	}
	return lo
}
