package planner

import (
	"math"
	"slices"
	"sort"
	"time"
)

// tryStart starts the job now with the first option that can be placed:
// first (when first.w > 0), then its other options by increasing cost
// that still beat waiting (by idleCost when idle is set). It reports
// whether the job starts.
func (s *smdIsland) tryStart(it *smdItem, first option, idle bool) bool {
	c := s.cycle
	ji := it.pl.ji
	cands := s.cands[:0] // scratch: nothing keeps them
	if first.w > 0 {
		cands = append(cands, first)
	}
	rest := append(s.rest[:0], it.opts...)
	defer func() { s.cands, s.rest = cands[:0], rest[:0] }()
	slices.SortStableFunc(rest, func(a, b option) int { return lessInt(a.cost < b.cost) })
	for _, o := range rest {
		if v := o.cost; v < it.null || idle && o.idleCost < it.null {
			cands = append(cands, o)
		}
	}
	if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
		return false
	}
	for _, o := range cands {
		if s.startOption(it, o) {
			return true
		}
	}
	return false
}

// startOption starts the job now with option o when the long-job share,
// the burst-buffer pool and the nodes allow it, reserving what it takes.
func (s *smdIsland) startOption(it *smdItem, o option) bool {
	c := s.cycle
	ji := it.pl.ji
	if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
		return false
	}
	if c.isLong(o) && o.w > s.longFree && !(ji.aged && o.w == narrowest(it.all)) {
		return false
	}
	nodes, ok := c.place(ji.isl, o.sh, ji.cpuPerW, ji.memPerW)
	if !ok {
		return false
	}
	if ji.bbPool >= 0 {
		c.bbFree[ji.bbPool] -= ji.bb
	}
	if c.isLong(o) {
		s.longFree -= o.w
	}
	pl := it.pl
	pl.start, pl.nodes = true, nodes
	pl.w, pl.p, pl.sh, pl.dur = o.w, o.p, o.sh, o.dur
	pl.key = o.cost / ji.weight
	pl.reasons = reasonsAround(ReasonAdmitted, ji, o.w, o.durReason)
	return true
}

// reserveForAged protects aged jobs from starvation, EASY-backfill style:
// aged jobs are served first (agedFactor); the first aged job that cannot
// fit now gets a reservation at the time running jobs free enough GPUs,
// and other jobs keep only options that end before that time.
func (s *smdIsland) reserveForAged(items []*smdItem) {
	c := s.cycle
	var aged []*smdItem
	for _, it := range items {
		if it.pl.ji.aged {
			aged = append(aged, it)
		}
	}
	slices.SortStableFunc(aged, func(a, b *smdItem) int {
		return lessInt(a.pl.ji.job.SubmitTime.Before(b.pl.ji.job.SubmitTime))
	})
	free, _, _ := c.free(s.isl)
	for _, it := range aged {
		need := math.MaxInt
		for _, o := range it.opts {
			need = min(need, o.w)
		}
		if need <= free {
			free -= need
			continue
		}
		shadow := s.shadowTime(need - free)
		for _, other := range items {
			if other.pl.ji.aged {
				continue
			}
			kept := other.opts[:0:0]
			for _, o := range other.opts {
				if !c.s.Now.Add(o.dur).After(shadow) {
					kept = append(kept, o)
				}
			}
			other.opts = kept
		}
		return
	}
}

// smdIsland is SMD's state while it plans one island: the free GPUs when
// planning starts, the release curve of the running jobs, the queue price
// and the long-job budget.
type smdIsland struct {
	*cycle
	isl          *island
	freeGPU      int
	releases     []release
	mu           float64 // queue weight per GPU (Σ ω / GPUs)
	longFree     int     // GPUs long jobs may still take (Options.LongJobShare)
	longHeldGPUs int     // GPUs running long jobs hold (jobInfo.heldLong)
	totalGPU     int
	// longProf is the long-job budget over time while waiting jobs are
	// scheduled (scheduleWaiting); nil when the share does not bind.
	longProf *gpuProfile
	// poolProf is each burst-buffer pool's free space over time while
	// waiting jobs are scheduled (bbplan.go); nil without pools.
	poolProf []*gpuProfile
	// spare is the room the profiles leave for reservations; choices,
	// cands and rest are scratch (waitChoices, tryStart).
	spare       int
	choices     []waitChoice
	cands, rest []option
}

// newSMDIsland computes what SMD's costs need per island: free GPUs,
// the release curve of running jobs, and the queue price μ.
func (c *cycle) newSMDIsland(isl *island) *smdIsland {
	s := &smdIsland{cycle: c, isl: isl}
	s.freeGPU, _, _ = c.free(isl)
	longHeld := 0
	for _, ji := range isl.running {
		ji.heldLong = c.longRun(c.runningLeft(ji))
		if ji.heldLong {
			longHeld += ji.req
		}
	}
	s.releases = c.runningReleases(isl.releases[:0], isl, nil)
	isl.releases = s.releases[:0]
	for k := 1; k < len(s.releases); k++ {
		s.releases[k].gpus += s.releases[k-1].gpus
	}
	var w float64
	total := 0
	for _, i := range isl.nodes {
		total += c.nodes[i].gpus
	}
	for _, ji := range isl.jobs {
		if !ji.keep {
			w += ji.weight
		}
	}
	s.totalGPU, s.longHeldGPUs = total, longHeld
	s.longFree = math.MaxInt / 2
	if c.o.LongJobShare < 1 { // at least one node's worth, so long jobs progress
		s.longFree = max(0, max(int(c.o.LongJobShare*float64(total)), isl.maxGPN)-longHeld)
	}
	if total > 0 {
		s.mu = w / float64(total)
	}
	return s
}

// release says running jobs free gpus GPUs (cumulative) after a delay.
type release struct {
	after time.Duration
	gpus  int
}

// waitFor is the delay until running jobs have released need GPUs
// (24 h when they never do; 0 when need ≤ 0).
func (s *smdIsland) waitFor(need int) time.Duration {
	if need <= 0 {
		return 0
	}
	k := sort.Search(len(s.releases), func(k int) bool { return s.releases[k].gpus >= need })
	if k == len(s.releases) {
		return 24 * time.Hour
	}
	return s.releases[k].after
}

// shadowTime is when running jobs of the island will have released need
// more GPUs.
func (s *smdIsland) shadowTime(need int) time.Time {
	return s.s.Now.Add(s.waitFor(need))
}

// relaxLongShare lets long jobs use idle GPUs beyond the long-job share
// when no short job is waiting: the share then keeps only LongJobShare of
// the partition free for short jobs that may arrive.
func (s *smdIsland) relaxLongShare(items []*smdItem) {
	c := s.cycle
	if c.o.LongJobShare >= 1 {
		return
	}
	for _, it := range items {
		for _, o := range it.opts {
			if !it.running && !c.isLong(o) {
				return // a short job waits: keep the share
			}
		}
	}
	limit := s.totalGPU - int(c.o.LongJobShare*float64(s.totalGPU))
	s.longFree = max(s.longFree, limit-s.longHeldGPUs)
}

// earlyStarvationAge is the least wait before Options.EarlyStarvationStretch
// promotes a job.
const earlyStarvationAge = time.Hour

// promoteEarly promotes (ji.aged) the one waiting job of the island that
// waited longest among those past the early starvation limit
// (Options.EarlyStarvationStretch), when no job of the island is aged: one
// at a time, so that the plan's order stays its own for the rest.
func (s *smdIsland) promoteEarly(items []*smdItem) {
	c := s.cycle
	k := c.o.EarlyStarvationStretch
	if k <= 0 {
		return
	}
	var best *jobInfo
	for _, it := range items {
		ji := it.pl.ji
		if it.running || ji.job.State != JobPending {
			continue
		}
		if ji.aged {
			return
		}
		wait := c.s.Now.Sub(ji.job.SubmitTime)
		if ji.job.SubmitTime.IsZero() || wait < earlyStarvationAge {
			continue
		}
		if !c.waitedTimes(ji, wait, k) {
			continue
		}
		if best == nil || ji.job.SubmitTime.Before(best.job.SubmitTime) ||
			ji.job.SubmitTime.Equal(best.job.SubmitTime) && ji.job.ID < best.job.ID {
			best = ji
		}
	}
	if best != nil {
		best.aged = true
	}
}
