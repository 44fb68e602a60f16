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
	for len(moved) > 0 {
		failed := c.placeResizes(items, m, choice, moved)
		if failed < 0 {
			return
		}
		// A resize that does not fit keeps its old nodes; place the others again.
		c.holdRunning(items[moved[failed]].pl.ji)
		moved = append(moved[:failed], moved[failed+1:]...)
	}
}

// placeResizes places the resized jobs in order. When one does not fit,
// it undoes the round's placements and returns that job's position.
func (c *cycle) placeResizes(items []*smdItem, m *mcmkp, choice, moved []int) int {
	type done struct {
		nodes []int
		o     option
	}
	var placed []done
	for k, i := range moved {
		ji := items[i].pl.ji
		o := items[i].opts[choice[i]-m.first[i]]
		nodes, ok := c.place(ji.isl, o.sh, ji.cpuPerW, ji.memPerW)
		if !ok {
			for n, d := range placed {
				c.release(d.nodes, d.o.sh, items[moved[n]].pl.ji.cpuPerW, items[moved[n]].pl.ji.memPerW)
			}
			return k
		}
		placed = append(placed, done{nodes, o})
	}
	for n, i := range moved {
		pl, d := items[i].pl, placed[n]
		pl.action, pl.w, pl.p, pl.sh, pl.nodes, pl.dur = ActionResize, d.o.w, d.o.p, d.o.sh, d.nodes, d.o.dur
		pl.reasons = []Reason{ReasonResized, d.o.durReason}
	}
	return -1
}
