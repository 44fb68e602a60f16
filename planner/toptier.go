package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The top tier (docs/planner.md, "Partitions"): each partition is an
// island planned on its own; a pending job that lists several partitions
// (sbatch -p a,b) and lets Strata rewrite it (a valid hint without
// rewrite=no) is first given to the one partition where its predicted
// cost is lowest — ANDREAS' cost of the job's completion, energy and
// tardiness, with the completion counted from an estimate of the
// partition's queue:
//
//	cost_k = ω·(wait_k + T_k) + λ_E·energy_k + λ_T·max(0, now + wait_k + T_k − deadline)
//
// where T_k is the job's modelled run time at its requested size on the
// partition's GPUs and wait_k is the partition's queued work (the rest of
// its running jobs and its pending jobs, GPU-seconds) over its GPUs. Jobs
// are given out in submit order and each adds its work to the queue of the
// partition it got, so flexible jobs spread over the partitions. Strata
// writes the chosen partition; the user's list is kept in the admin
// comment, so the job may move again in a later cycle — only when another
// partition is predicted to cost partitionStickiness less.

// partitionStickiness keeps a job in its current partition unless another
// is predicted to cost at least this fraction less: the estimates are
// rough, and a job that moves back and forth each cycle gains nothing.
const partitionStickiness = 0.1

// candidates are the islands the top tier may give pending job j, in the
// user's order: its allowed partitions that the cycle knows and that have
// usable nodes; nil when fewer than two.
func (c *cycle) candidates(j *Job) []*island {
	if j.State != JobPending || len(j.Partitions) < 2 || grouped(j) || j.Unreadable != "" {
		return nil
	}
	var out []*island
	for _, name := range j.Partitions {
		if isl := c.byPart[name]; isl != nil && len(isl.nodes) > 0 && !slices.Contains(out, isl) {
			out = append(out, isl)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// islandLoads is each island's queued work in GPU-seconds (by island
// index): the modelled rest of its running jobs and its pending jobs at
// their requested sizes.
func (c *cycle) islandLoads() []float64 {
	load := make([]float64, len(c.islands))
	for _, ji := range c.jobs {
		if ji.isl == nil || ji.req == 0 {
			continue
		}
		switch ji.job.State {
		case JobRunning:
			if left := c.runningEnd(ji).Sub(c.s.Now).Seconds(); left > 0 {
				load[ji.isl.idx] += left * float64(ji.req)
			}
		case JobPending:
			d, _ := c.durationAt(ji, max(1, ji.size), max(1, ji.pmin))
			load[ji.isl.idx] += d.Seconds() * float64(max(1, ji.size))
		}
	}
	return load
}

// islandBid is one candidate island's estimate for a job.
type islandBid struct {
	isl       *island
	ji        *jobInfo
	wait, run time.Duration
	cost      float64
}

// chooseIslands gives each flexible pending job (with candidates) its
// island, in submit order, and adds it to the cycle; jobs the top tier may
// not move (no hint, rewrite=no, an invalid hint) stay in their current
// partition. Called by addJobs after every other job was added.
func (c *cycle) chooseIslands(flex []*Job) {
	if len(flex) == 0 {
		return
	}
	load := c.islandLoads()
	slices.SortStableFunc(flex, func(a, b *Job) int {
		if c := a.SubmitTime.Compare(b.SubmitTime); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	for _, j := range flex {
		bids := c.bids(j, load)
		cur := c.partitionOf(j)
		pick := c.pickBid(bids, cur)
		if pick == nil { // not movable, or fits nowhere: plan it where it is
			c.addJobInfo(c.newJobInfo(j, cur))
			continue
		}
		ji := c.newJobInfo(j, pick.isl)
		ji.chosen = true
		ji.choice = bidDetail(pick, bids)
		c.addJobInfo(ji)
		load[pick.isl.idx] += pick.run.Seconds() * float64(max(1, ji.size))
	}
}

// bids estimates the job's cost in each candidate island it fits in; nil
// when the job is not the top tier's to move.
func (c *cycle) bids(j *Job, load []float64) []islandBid {
	var bids []islandBid
	for _, isl := range c.candidates(j) {
		ji := c.staticJobInfoIn(j, isl)
		if ji.keep || !ji.hasHint || ji.req == 0 {
			return nil
		}
		if j.GPUType != "" && isl.gpuType != "" && !strings.EqualFold(j.GPUType, isl.gpuType) {
			continue
		}
		if _, ok := c.sizeShape(ji); !ok {
			if _, ok := c.shapeFor(isl, ji.gmin, ji.cpuPerW, ji.memPerW); !ok {
				continue
			}
		}
		run, _ := c.durationAt(ji, max(1, ji.size), max(1, ji.pmin))
		wait := seconds(load[isl.idx] / float64(max(1, isl.gpus)))
		o := option{w: max(1, ji.size), p: ji.pmin, dur: run}
		cost := ji.weight*wait.Seconds() + c.optionCost(ji, &o, c.s.Now.Add(wait))
		bids = append(bids, islandBid{isl: isl, ji: ji, wait: wait, run: run, cost: cost})
	}
	return bids
}

// pickBid is the cheapest bid (the first listed on a tie), or the current
// island's when it is within partitionStickiness of the cheapest.
func (c *cycle) pickBid(bids []islandBid, cur *island) *islandBid {
	var best, stay *islandBid
	for i := range bids {
		b := &bids[i]
		if best == nil || b.cost < best.cost {
			best = b
		}
		if b.isl == cur {
			stay = b
		}
	}
	if stay != nil && best != nil && stay.cost <= best.cost*(1+partitionStickiness) {
		return stay
	}
	return best
}

// bidDetail is the explanation of the choice, e.g. "partition gpub of
// gpua,gpub: predicted wait 10m + run 1h (cost 4200); gpua: wait 3h + run
// 1h (cost 14400)".
func bidDetail(pick *islandBid, bids []islandBid) string {
	var b strings.Builder
	fmt.Fprintf(&b, "partition %s: predicted wait %s + run %s (cost %s)", pick.isl.part.Name,
		shortDur(pick.wait), shortDur(pick.run), costString(pick.cost))
	for i := range bids {
		if o := &bids[i]; o != pick {
			fmt.Fprintf(&b, "; %s: wait %s + run %s (cost %s)", o.isl.part.Name, shortDur(o.wait), shortDur(o.run), costString(o.cost))
		}
	}
	return b.String()
}

func shortDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func costString(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "∞"
	}
	return fmt.Sprintf("%.0f", x)
}
