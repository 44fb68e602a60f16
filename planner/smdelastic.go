package planner

import (
	"math"
	"sort"
)

// mustRun is the null cost of a running job in smd-elastic: it keeps
// running at some size.
const mustRun = 1e15

// resizePenalty is the restart time (s) a resize costs the job, as in the
// Pollux artifact's simulator (30 s).
const resizePenalty = 30.0

// elasticItems offers the island's running jobs that have a model and a
// GPU range to the knapsack (smd-elastic): their options cover the
// remaining work, a size change costs resizePenalty, and their current
// allocation is released so the knapsack sees it as capacity.
func (c *cycle) elasticItems(isl *island) []*smdItem {
	var out []*smdItem
	for _, ji := range isl.running {
		if ji.fixed || ji.model.kind == kindOpaque {
			continue
		}
		frac := c.remainingFraction(ji)
		opts := c.options(ji, c.s.Now)
		for k := range opts {
			o := &opts[k]
			o.dur = seconds(o.dur.Seconds()*frac + resizeSeconds(o.w != ji.req))
			o.cost = c.optionCost(ji, o, c.s.Now)
		}
		if len(opts) == 0 {
			continue
		}
		c.releaseRunning(ji)
		out = append(out, &smdItem{pl: c.keepDecision(ji), opts: opts, all: opts, running: true})
	}
	return out
}

func resizeSeconds(changed bool) float64 {
	if changed {
		return resizePenalty
	}
	return 0
}

// remainingFraction estimates the work left of a running job from its
// attained GPU service and its modelled duration at the current size.
func (c *cycle) remainingFraction(ji *jobInfo) float64 {
	d, _ := c.durationAt(ji, max(1, ji.req), max(1, ji.pmin))
	done := ji.job.AttainedGPUSeconds / (d.Seconds() * float64(max(1, ji.req)))
	return math.Min(1, math.Max(0.05, 1-done))
}

// resizeRunning applies the knapsack's sizes to the running items: jobs
// keeping their size are put back on their nodes first, then resized
// jobs are placed (back on their old allocation when the new shape does
// not fit).
func (c *cycle) resizeRunning(items []*smdItem, m *mcmkp, choice []int) {
	var moved []int
	for i, it := range items {
		if !it.running {
			continue
		}
		if o := choice[i]; o < 0 || it.opts[o-m.first[i]].w == it.pl.ji.req {
			c.holdRunning(it.pl.ji)
			continue
		}
		moved = append(moved, i)
	}
	delta := func(i int) int { return items[i].opts[choice[i]-m.first[i]].w - items[i].pl.ji.req }
	sort.SliceStable(moved, func(a, b int) bool { return delta(moved[a]) < delta(moved[b]) }) // shrink first
	for _, i := range moved {
		it := items[i]
		o := it.opts[choice[i]-m.first[i]]
		ji := it.pl.ji
		nodes, ok := c.place(ji.isl, o.sh, ji.cpuPerW, ji.memPerW)
		if !ok {
			c.holdRunning(ji)
			continue
		}
		pl := it.pl
		pl.action, pl.w, pl.p, pl.sh, pl.nodes, pl.dur = ActionResize, o.w, o.p, o.sh, nodes, o.dur
		pl.reasons = []Reason{ReasonResized, o.durReason}
	}
}
