package planner

import "context"

// Tiresias is 2D-LAS.
type Tiresias struct{ o Options }

var _ Policy = (*Tiresias)(nil)

// NewTiresias returns Tiresias with options.
func NewTiresias(o Options) *Tiresias { return &Tiresias{o: o} }

// Plan implements Policy.
func (p *Tiresias) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	lp := &listPolicy{name: "tiresias", o: p.o, key: func(ji *jobInfo, _ float64) float64 { return ji.job.AttainedGPUSeconds }}
	return lp.plan(ctx, s)
}
