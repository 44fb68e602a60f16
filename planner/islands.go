package planner

import (
	"context"
	"fmt"
	"slices"
)

// islandPlanner plans the pending (and, for policies that reshape in
// simulation, running) jobs of one island. It may read and change the
// cycle's free capacity; it returns one planned entry per job it decided.
type islandPlanner func(c *cycle, isl *island) []*planned

// planIslands is the opening and closing every policy shares: the cycle
// state built from the snapshot (with the policy's memo; the top tier
// gives jobs that list several partitions theirs, toptier.go), a keep
// decision for every pending job no island can plan (unknown partition, no
// GPUs), the islands planned group by group (islands that share nodes or a
// burst-buffer pool form one group and are planned in partition order;
// groups are independent, so Options.Run may plan them concurrently),
// checking ctx between islands, and finalize (ranks, priorities, predicted
// times) over all of them.
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
	groups := c.islandGroups()
	out := make([][]*planned, len(groups))
	planGroup := func(i int) {
		g := c
		if len(groups) > 1 { // a cycle of its own: the slabs are not shared
			cp := *c
			cp.plSlab, cp.optSlab, cp.optTmp = nil, nil, nil
			g = &cp
		}
		for _, isl := range groups[i] {
			if ctx.Err() != nil {
				return
			}
			out[i] = append(out[i], plan(g, isl)...)
		}
	}
	if o.Run != nil && len(groups) > 1 {
		o.Run(len(groups), planGroup)
	} else {
		for i := range groups {
			planGroup(i)
		}
	}
	if err := ctx.Err(); err != nil {
		return Plan{}, fmt.Errorf("plan snapshot %s: %w", s.ID, err)
	}
	for _, g := range out {
		pls = append(pls, g...)
	}
	p := c.finalize(name, pls)
	if m != nil {
		m.keep(c)
	}
	return p, nil
}

// islandGroups partitions the islands into groups that share no usable
// node and no burst-buffer pool (a job of each using it), in order of
// their first island; islands inside a group keep partition order.
func (c *cycle) islandGroups() [][]*island {
	if len(c.islands) == 1 {
		return [][]*island{c.islands}
	}
	parent := c.nodeRoots()
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if a, b = find(a), find(b); a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	pool := make([]int, len(c.pools)) // pool → first island + 1 with a job using it
	for _, ji := range c.jobs {
		if ji.isl == nil {
			continue
		}
		for _, p := range [2]int{ji.bbPool, ji.bbHeld} {
			if p < 0 {
				continue
			}
			if pool[p] == 0 {
				pool[p] = ji.isl.idx + 1
			} else {
				union(pool[p]-1, ji.isl.idx)
			}
		}
	}
	var groups [][]*island
	at := map[int]int{} // root → group index
	for _, isl := range c.islands {
		r := find(isl.idx)
		k, ok := at[r]
		if !ok {
			k = len(groups)
			at[r] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], isl)
	}
	return groups
}

// nodeRoots joins the islands that share a usable node: for each island,
// the first island of its set (a union-find's parent array, flattened). It
// depends only on the cluster's static shape: the memo keeps it. The
// caller owns the slice returned.
func (c *cycle) nodeRoots() []int {
	if c.memo != nil && len(c.memo.roots) == len(c.islands) {
		return slices.Clone(c.memo.roots)
	}
	parent := make([]int, len(c.islands))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	owner := make(map[int]int, len(c.nodes)) // node → first island holding it
	for _, isl := range c.islands {
		for _, n := range isl.nodes {
			o, ok := owner[n]
			if !ok {
				owner[n] = isl.idx
				continue
			}
			if a, b := find(o), find(isl.idx); a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	for i := range parent {
		parent[i] = find(i)
	}
	if c.memo != nil {
		c.memo.roots = slices.Clone(parent)
	}
	return parent
}
