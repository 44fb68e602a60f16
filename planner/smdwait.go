package planner

import (
	"cmp"
	"math"
	"slices"
)

// scheduleWaiting decides, for every job the knapsack and backfill left
// waiting, the size it is written with and when the plan expects it to
// start: a list schedule over the island's GPU profile (free GPUs now, the
// predicted ends of running and starting jobs). Jobs are taken aged first,
// then by their best cost per weight (SMD's WSPT order); each gets the
// option that minimises its cost plus the cost of waiting for that
// option's earliest start, and reserves it. So a waiting job is written
// with the size it will start with when running jobs end, never a size
// that is only cheaper while it waits (Slurm may start it at any moment
// between Strata's cycles, at the size written). A job whose best start is
// now starts now when it can be placed. The long-job share binds in the
// future too: long options must also fit a second profile, the GPUs long
// jobs may hold.
func (s *smdIsland) scheduleWaiting(items []*smdItem) {
	wait := s.isl.smd.wait[:0]
	for _, it := range items {
		if !it.pl.start && !it.running {
			wait = append(wait, it)
		}
	}
	defer func() { s.isl.smd.wait = wait[:0] }()
	if len(wait) == 0 {
		return
	}
	s.sortWaiting(wait)
	s.spare = 2 * len(wait) // the reservations' steps
	prof := s.profile(items, &s.isl.profs[0])
	s.longProf = s.longProfile(items, &s.isl.profs[1])
	s.poolProf = s.poolProfiles(items)
	for k, it := range wait {
		s.scheduleOne(it, prof, k)
	}
}

// longProfile is the GPUs long jobs may still hold over time (nil when the
// long-job share does not bind): the budget left now, given back when the
// running and starting long jobs are predicted to end.
// It is built in dst's buffers unless dst is nil.
func (s *smdIsland) longProfile(items []*smdItem, dst *gpuProfile) *gpuProfile {
	c := s.cycle
	if c.o.LongJobShare >= 1 {
		return nil
	}
	// the running long jobs (a preempted one gives its GPUs back early)
	s.isl.relTmp = c.runningReleases(s.isl.relTmp[:0], s.isl, func(ji *jobInfo) bool { return ji.heldLong })
	var rel []release
	for _, it := range items {
		if it.pl.start && !it.running && c.longRun(it.pl.dur) {
			rel = append(rel, release{it.pl.dur, it.pl.w})
		}
	}
	return newProfileSorted(dst, s.longFree, s.isl.relTmp, rel, s.spare)
}

// limitedByShare reports whether option o of the job counts against the
// long-job share (an aged job may always start at its narrowest size).
func (s *smdIsland) limitedByShare(it *smdItem, o option) bool {
	return s.longProf != nil && s.isLong(o) && !(it.pl.ji.aged && o.w == narrowest(it.all))
}

// earliest is the earliest start at or after from at which option o fits
// the GPU profile, for long options the long-job profile, and the job's
// burst-buffer data its pool's profile.
func (s *smdIsland) earliest(it *smdItem, prof *gpuProfile, o option, from float64) (float64, bool) {
	d := o.dur.Seconds()
	for {
		t, ok := prof.earliest(o.w, d, from)
		if !ok {
			return t, ok
		}
		u := t
		if s.limitedByShare(it, o) {
			if u, ok = s.longProf.earliest(o.w, d, t); !ok {
				return u, ok
			}
		}
		if u == t {
			if u, ok = s.poolEarliest(it, o, t); !ok || u == t {
				return u, ok
			}
		}
		from = u
	}
}

// reserve takes option o from the profiles on [t, t+dur).
func (s *smdIsland) reserve(it *smdItem, prof *gpuProfile, o option, t float64) {
	prof.reserve(o.w, t, o.dur.Seconds())
	if s.limitedByShare(it, o) {
		s.longProf.reserve(o.w, t, o.dur.Seconds())
	}
	s.poolReserve(it, o, t)
}

// profile is the island's GPU profile after this cycle's starts: the GPUs
// free now, released when running and starting jobs are predicted to end.
// It is built in dst's buffers unless dst is nil.
func (s *smdIsland) profile(items []*smdItem, dst *gpuProfile) *gpuProfile {
	c := s.cycle
	free, _, _ := c.free(s.isl)
	var rel []release
	for _, it := range items {
		if it.pl.start && !it.running {
			rel = append(rel, release{it.pl.dur, it.pl.w})
		}
	}
	s.isl.relTmp = c.runningReleases(s.isl.relTmp[:0], s.isl, nil)
	return newProfileSorted(dst, free, s.isl.relTmp, rel, s.spare)
}

// waitChoice is one option of a waiting job with its earliest start
// (seconds after Now) and its cost including the wait.
type waitChoice struct {
	o     option
	t     float64
	value float64
}

// scheduleOne gives one waiting job its option and start: the cheapest
// choice; when that is "now", the job starts if it can be placed, else the
// choices are taken again from the next change of the profile on.
func (s *smdIsland) scheduleOne(it *smdItem, prof *gpuProfile, order int) {
	ji := it.pl.ji
	bbWait := ji.bbPool >= 0 && s.bbFree[ji.bbPool] < ji.bb
	from := ji.notYet.Seconds() // Slurm does not consider the job before then
	if bbWait && from == 0 && len(prof.at) > 1 {
		from = prof.at[1] // the pool's releases are not modelled: not now
	}
	for {
		choices := s.waitChoices(it, prof, from)
		for _, ch := range choices {
			if ch.t == 0 && !bbWait {
				if s.startOption(it, ch.o) {
					s.reserve(it, prof, ch.o, 0)
					return
				}
				continue
			}
			if ch.t > 0 {
				s.wait(it, ch.o, ch.t, order, true)
				s.reserve(it, prof, ch.o, ch.t)
				return
			}
		}
		if next, ok := nextBreak(prof, from); ok {
			from = next
			continue
		}
		// No start the profile can predict (the job never fits, or it can
		// be placed neither now nor after any release): wait at the size
		// that is cheapest on its own.
		best := it.all[0]
		for _, o := range it.all[1:] {
			if o.cost < best.cost {
				best = o
			}
		}
		s.wait(it, best, 0, order, false)
		return
	}
}

// waitChoices lists the job's options that can start at or after from,
// cheapest (cost plus the cost of waiting) first.
func (s *smdIsland) waitChoices(it *smdItem, prof *gpuProfile, from float64) []waitChoice {
	ji := it.pl.ji
	out := s.choices[:0] // the last call's: its caller is done with them
	for _, o := range it.all {
		t, ok := s.earliest(it, prof, o, from)
		if !ok {
			continue
		}
		waitCost := ji.weight * t
		if ji.aged {
			waitCost *= agedFactor
		}
		out = append(out, waitChoice{o, t, o.cost + waitCost})
	}
	slices.SortStableFunc(out, func(a, b waitChoice) int {
		if c := cmp.Compare(a.value, b.value); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	s.choices = out
	return out
}

// wait records a waiting job's planned size and, when known, its planned
// start t seconds from now. Waiting jobs rank by that start, then by their
// place in the list schedule (order): jobs planned to start together all
// fit then, so the order among them matters only when predictions err.
func (s *smdIsland) wait(it *smdItem, o option, t float64, order int, known bool) {
	ji, pl := it.pl.ji, it.pl
	pl.w, pl.p, pl.sh, pl.dur = o.w, o.p, o.sh, o.dur
	pl.key = math.Inf(1)
	if known {
		pl.key = math.Round(t*1e3)*1e6 + float64(order) // ms, then order: exact for starts within 100 days
		pl.predStart, pl.hasStart, pl.scheduled = s.s.Now.Add(seconds(t)), true, true
	}
	r := ReasonWaitResources
	switch {
	case s.poolOnly(ji, o):
		r, pl.poolWait, pl.key = ReasonBurstBufferFull, true, o.cost/ji.weight
	case ji.notYet > 0:
		r = ji.notYetReason()
	case ji.bbPool >= 0 && s.bbFree[ji.bbPool] < ji.bb:
		r = ReasonBurstBufferFull
	}
	pl.reasons = reasonsAround(r, ji, o.w, o.durReason)
}

// nextBreak is the profile's first change after from.
func nextBreak(p *gpuProfile, from float64) (float64, bool) {
	k := p.stepAt(from) // the breakpoints ascend: at[k] ≤ from < at[k+1], but for from before at[0]
	if p.at[k] > from {
		return p.at[k], true
	}
	if k+1 < len(p.at) {
		return p.at[k+1], true
	}
	return 0, false
}

// bestCostPerWeight is the lowest option cost per unit of job weight.
func bestCostPerWeight(opts []option, weight float64) float64 {
	best := math.Inf(1)
	for _, o := range opts {
		best = math.Min(best, o.cost/weight)
	}
	return best
}
