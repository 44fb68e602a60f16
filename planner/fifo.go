package planner

import "context"

// FIFO orders jobs by submit time (Helios-artifact semantics: no backfill).
type FIFO struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*FIFO)(nil)

// Plan implements Policy.
func (f *FIFO) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "fifo", o: f.o, memo: &f.memo, key: func(ji *jobInfo, _ float64) float64 {
		return float64(ji.job.SubmitTime.Unix())
	}}
	return lp.plan(ctx, s)
}
