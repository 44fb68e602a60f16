package planner

import "context"

// SJF is shortest-job-first by duration, non-preemptive, no backfill. It
// is an ORACLE baseline: it orders by the duration Options.Predictor gives
// (the simulator passes the true duration) and labels every decision with
// ReasonOracle. Without a predictor it orders by the time model.
type SJF struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*SJF)(nil)

// Plan implements Policy.
func (p *SJF) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "sjf", o: p.o, memo: &p.memo, extra: []Reason{ReasonOracle},
		key: func(_ *jobInfo, dur float64) float64 { return dur }}
	return lp.plan(ctx, s)
}
