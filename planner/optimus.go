package planner

import "context"

// Optimus is greedy marginal gain.
type Optimus struct{ o Options }

var _ Policy = (*Optimus)(nil)

// Plan implements Policy.
func (p *Optimus) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "optimus", o: p.o, key: func(_ *jobInfo, dur float64) float64 { return dur }}
	return lp.plan(ctx, s)
}
