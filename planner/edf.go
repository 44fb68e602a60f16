package planner

import (
	"context"
	"math"
)

// EDF is earliest-deadline-first, one of ANDREAS' first-principle
// baselines (algorithms.md A2): jobs are ordered by the deadline= of their
// hint (jobs without one last, in job ID order) and sized like FIFO (the
// request clamped into the gpus= range), non-preemptive, no backfill.
type EDF struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*EDF)(nil)

// Plan implements Policy.
func (p *EDF) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "edf", o: p.o, memo: &p.memo, key: func(ji *jobInfo, _ float64) float64 {
		if ji.deadline.IsZero() {
			return math.Inf(1)
		}
		return float64(ji.deadline.Unix())
	}}
	return lp.plan(ctx, s)
}
