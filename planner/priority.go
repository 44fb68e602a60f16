package planner

import "context"

// PriorityPolicy is ANDREAS' "priority" baseline (algorithms.md A2): the
// job with the highest tardiness weight first. A job's tardiness weight is
// its weight= (Options.TardinessWeight scales them all alike), so jobs are
// ordered by decreasing weight, then job ID; they are sized like FIFO,
// non-preemptive, no backfill.
type PriorityPolicy struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*PriorityPolicy)(nil)

// Plan implements Policy.
func (p *PriorityPolicy) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "priority", o: p.o, memo: &p.memo, key: func(ji *jobInfo, _ float64) float64 {
		return -ji.weight
	}}
	return lp.plan(ctx, s)
}
