package planner

import (
	"context"
	"fmt"
)

// islandPlanner plans the pending (and, for policies that reshape in
// simulation, running) jobs of one island. It may read and change the
// cycle's free capacity; it returns one planned entry per job it decided.
type islandPlanner func(c *cycle, isl *island) []*planned

// planIslands is the opening and closing every policy shares: the cycle
// state built from the snapshot (with the policy's memo), a keep decision
// for every pending job no island can plan (unknown partition, no GPUs),
// one call of plan per island in partition order, checking ctx between
// islands, and finalize (ranks, priorities, predicted times).
func planIslands(ctx context.Context, s *Snapshot, o *Options, slot *memoSlot, name string, plan islandPlanner) (Plan, error) {
	m := slot.take()
	defer slot.put(m)
	c, err := newCycleMemo(ctx, s, o, m)
	if err != nil {
		return Plan{}, err
	}
	var pls []*planned
	for _, ji := range c.orphans {
		if ji.job.State == JobPending {
			pls = append(pls, c.keepDecision(ji))
		}
	}
	for _, isl := range c.islands {
		if err := ctx.Err(); err != nil {
			return Plan{}, fmt.Errorf("plan snapshot %s: %w", s.ID, err)
		}
		pls = append(pls, plan(c, isl)...)
	}
	return c.finalize(name, pls), nil
}
