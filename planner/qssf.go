package planner

import "context"

// QSSF is Helios' quasi-shortest-service-first: jobs ordered by predicted
// GPU time (predicted duration × requested GPUs), non-preemptive, no
// backfill. Durations come from the time model, then Options.Predictor,
// then the time limit.
type QSSF struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*QSSF)(nil)

// Plan implements Policy.
func (p *QSSF) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "qssf", o: p.o, memo: &p.memo,
		key: func(ji *jobInfo, dur float64) float64 { return dur * float64(max(1, ji.size)) }}
	return lp.plan(ctx, s)
}
