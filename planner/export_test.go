package planner

import (
	"context"
	"math/rand/v2"
)

// AndreasCosts runs andreas' search on every island of s and returns, per
// island with jobs to plan, the cost of its first (deterministic) greedy
// pass and of the pass the search keeps (tests only).
func AndreasCosts(s *Snapshot, o Options) (first, best []float64, err error) {
	o = o.withDefaults()
	c, err := newCycleMemo(context.Background(), s, &o, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, isl := range c.islands {
		_, jobs := c.andreasJobs(isl, false)
		if len(jobs) == 0 {
			continue
		}
		saved, bb := c.islandNodes(isl), append([]int64(nil), c.bbFree...)
		first = append(first, c.andreasPass(isl, jobs, andreasBase(jobs), nil).cost)
		c.restoreIsland(isl, saved, bb)
		rng := rand.New(rand.NewPCG(hash64(s.ID), hash64(isl.part.Name)))
		best = append(best, c.andreasSearch(isl, jobs, rng).cost)
		c.restoreIsland(isl, saved, bb)
	}
	return first, best, nil
}
