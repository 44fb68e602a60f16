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
func (c *cycle) tryStart(it *smdItem, first option, idle bool) bool {
	ji := it.pl.ji
	cands := make([]option, 0, len(it.opts)+1)
	if first.w > 0 {
		cands = append(cands, first)
	}
	rest := append([]option(nil), it.opts...)
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
		if c.isLong(o) && o.w > ji.isl.longFree && !(ji.aged && o.w == narrowest(it.all)) {
			continue
		}
		nodes, ok := c.place(ji.isl, o.sh, ji.cpuPerW, ji.memPerW)
		if !ok {
			continue
		}
		if ji.bbPool >= 0 {
			c.bbFree[ji.bbPool] -= ji.bb
		}
		if c.isLong(o) {
			ji.isl.longFree -= o.w
		}
		pl := it.pl
		pl.start, pl.nodes = true, nodes
		pl.w, pl.p, pl.sh, pl.dur = o.w, o.p, o.sh, o.dur
		pl.key = o.cost / ji.weight
		pl.reasons = append(append([]Reason{ReasonAdmitted}, sizeReasons(ji, o.w)...), o.durReason)
		return true
	}
	return false
}

// waitOption chooses the allocation a waiting job is rewritten to: the
// option cheapest under the knapsack's final resource prices, or (exact
// solver, no prices) the one with the least GPU time.
func (c *cycle) waitOption(it *smdItem, m *mcmkp, lambda []float64) {
	ji := it.pl.ji
	best, bestV := -1, math.Inf(1)
	for k, o := range it.all {
		v := o.dur.Seconds() * float64(o.w)
		if lambda != nil && k < len(it.opts) && len(it.opts) == len(it.all) {
			v = o.cost + m.price(it.base+k, lambda)
		}
		if v < bestV {
			best, bestV = k, v
		}
	}
	o := it.all[best]
	pl := it.pl
	pl.w, pl.p, pl.sh, pl.dur = o.w, o.p, o.sh, o.dur
	pl.key = o.dur.Seconds() * float64(max(1, o.w)) / ji.weight
	r := ReasonWaitResources
	if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
		r = ReasonBurstBufferFull
	}
	pl.reasons = append(append([]Reason{r}, sizeReasons(ji, o.w)...), o.durReason)
}

// reserveForAged protects aged jobs from starvation, EASY-backfill style:
// aged jobs are served first (agedFactor); the first aged job that cannot
// fit now gets a reservation at the time running jobs free enough GPUs,
// and other jobs keep only options that end before that time.
func (c *cycle) reserveForAged(isl *island, items []*smdItem) {
	var aged []*smdItem
	for _, it := range items {
		if it.pl.ji.aged {
			aged = append(aged, it)
		}
	}
	slices.SortStableFunc(aged, func(a, b *smdItem) int {
		return lessInt(a.pl.ji.job.SubmitTime.Before(b.pl.ji.job.SubmitTime))
	})
	free, _, _ := c.free(isl)
	for _, it := range aged {
		need := math.MaxInt
		for _, o := range it.opts {
			need = min(need, o.w)
		}
		if need <= free {
			free -= need
			continue
		}
		shadow := c.shadowTime(isl, need-free)
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

// prepareIsland computes what SMD's costs need per island: free GPUs,
// the release curve of running jobs, and the queue price μ.
func (c *cycle) prepareIsland(isl *island) {
	isl.freeGPU, _, _ = c.free(isl)
	isl.releases = isl.releases[:0]
	longHeld := 0
	for _, ji := range isl.running {
		left := c.runningEnd(ji).Sub(c.s.Now)
		isl.releases = append(isl.releases, release{left, ji.req})
		if left > c.o.LongJob {
			longHeld += ji.req
		}
	}
	sort.Slice(isl.releases, func(a, b int) bool { return isl.releases[a].after < isl.releases[b].after })
	for k := 1; k < len(isl.releases); k++ {
		isl.releases[k].gpus += isl.releases[k-1].gpus
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
	isl.mu, isl.totalGPU, isl.longHeldGPUs = 0, total, longHeld
	isl.longFree = math.MaxInt / 2
	if c.o.LongJobShare < 1 { // at least one node's worth, so long jobs progress
		isl.longFree = max(0, max(int(c.o.LongJobShare*float64(total)), isl.maxGPN)-longHeld)
	}
	if total > 0 {
		isl.mu = w / float64(total)
	}
}

// release says running jobs free gpus GPUs (cumulative) after a delay.
type release struct {
	after time.Duration
	gpus  int
}

// waitFor is the delay until running jobs have released need GPUs
// (24 h when they never do; 0 when need ≤ 0).
func (isl *island) waitFor(need int) time.Duration {
	if need <= 0 {
		return 0
	}
	k := sort.Search(len(isl.releases), func(k int) bool { return isl.releases[k].gpus >= need })
	if k == len(isl.releases) {
		return 24 * time.Hour
	}
	return isl.releases[k].after
}

// shadowTime is when running jobs of the island will have released need
// more GPUs.
func (c *cycle) shadowTime(isl *island, need int) time.Time {
	return c.s.Now.Add(isl.waitFor(need))
}

// relaxLongShare lets long jobs use idle GPUs beyond the long-job share
// when no short job is waiting: the share then keeps only LongJobShare of
// the partition free for short jobs that may arrive.
func (c *cycle) relaxLongShare(isl *island, items []*smdItem) {
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
	limit := isl.totalGPU - int(c.o.LongJobShare*float64(isl.totalGPU))
	isl.longFree = max(isl.longFree, limit-isl.longHeldGPUs)
}
