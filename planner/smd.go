package planner

import "context"

// SMD is the sum-of-ratios multi-dimensional-knapsack planner.
type SMD struct {
	o     Options
	ratio bool
}

var _ Policy = (*SMD)(nil)

// Plan implements Policy.
func (p *SMD) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "smd", o: p.o, key: func(_ *jobInfo, dur float64) float64 { return dur }}
	return lp.plan(ctx, s)
}
