package planner

import (
	"cmp"
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
// partition's GPUs and wait_k is 0 when the job fits the partition's free
// GPUs now (less those given to flexible jobs before it), else the partition's queued work (the rest of its running jobs
// and its pending jobs, GPU-seconds) over its GPUs. Jobs are given out in
// submit order and each adds its work to the queue of the partition it
// got, so flexible jobs spread over the partitions. A job stays in its
// current partition unless another is predicted to cost partitionStickiness
// less.
//
// What is written (finalize): the chosen partition only for a job the plan
// starts now or holds back for it (a begin time), so that Slurm starts it
// there and not in another partition it lists; every other waiting job
// keeps (or gets back) all the partitions its user listed, so that Slurm
// may still start it wherever room appears first — narrowing waiting jobs
// splits one pooled queue into several and lengthens waits (measured:
// docs/evaluation.md § Partitions). The user's list is kept in the admin
// comment while the job is narrowed.

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
	// tooLong: the job may not run here (past its time limit); no bid.
	tooLong bool
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
	taken := make([]int, len(c.islands)) // GPUs given out now, by island
	slices.SortStableFunc(flex, func(a, b *Job) int {
		if c := a.SubmitTime.Compare(b.SubmitTime); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, j := range flex {
		bids := c.bids(j, load, taken)
		cur := c.partitionOf(j)
		pick := c.pickBid(bids, cur)
		if pick == nil { // not movable, or fits nowhere: plan it where it is
			c.addJobInfo(c.newJobInfo(j, cur))
			continue
		}
		ji := c.newJobInfo(j, pick.isl)
		ji.chosen = true
		ji.choice = bidDetail(pick, bids)
		ji.slowdown = 1
		for _, b := range bids {
			ji.slowdown = max(ji.slowdown, b.run.Seconds()/max(1, pick.run.Seconds()))
			if b.tooLong {
				ji.slowdown = math.Inf(1) // never left to start where it would be killed
			}
		}
		c.addJobInfo(ji)
		load[pick.isl.idx] += pick.run.Seconds() * float64(max(1, ji.size))
		if pick.wait == 0 {
			taken[pick.isl.idx] += max(1, ji.size)
		}
	}
}

// bids estimates the job's cost in each candidate island it fits in; nil
// when the job is not the top tier's to move.
func (c *cycle) bids(j *Job, load []float64, taken []int) []islandBid {
	var bids []islandBid
	for _, isl := range c.candidates(j) {
		ji := c.staticJobInfoIn(j, isl)
		if ji.keep || !ji.hasHint || ji.req == 0 {
			return nil
		}
		if j.GPUType != "" && isl.gpuType != "" && !strings.EqualFold(j.GPUType, isl.gpuType) {
			continue
		}
		sh, fits := c.sizeShape(ji)
		if !fits {
			if _, ok := c.shapeFor(isl, ji.gmin, ji.cpuPerW, ji.memPerW); !ok {
				continue
			}
		}
		run, _ := c.durationAt(ji, max(1, ji.size), max(1, ji.pmin))
		if tl := j.TimeLimit; ji.fixed && tl > 0 && run > tl {
			// Its size is kept: it would be killed at its time limit there,
			// so it must not be left to start there either.
			bids = append(bids, islandBid{isl: isl, run: run, tooLong: true})
			continue
		}
		var wait time.Duration // none when it fits the free GPUs now
		if free, _, _ := c.free(isl); !fits || free-taken[isl.idx] < max(1, ji.size) || !c.canPlace(isl, sh, ji.cpuPerW, ji.memPerW) {
			wait = seconds(load[isl.idx] / float64(max(1, isl.gpus)))
		}
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
		if b.tooLong {
			continue
		}
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
		if o := &bids[i]; o != pick && o.tooLong {
			fmt.Fprintf(&b, "; %s: run %s, past its time limit", o.isl.part.Name, shortDur(o.run))
		} else if o != pick {
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

// partitionToWrite is the partition field to write for a job the top tier
// placed: its island's partition when the plan starts it now or holds it
// back for it, else the user's whole list when Strata narrowed the job
// earlier, else "" (nothing to write).
func partitionToWrite(ji *jobInfo, d *Decision, dur time.Duration) string {
	resized := d.GPUsPerNode > 0 && d.GPUsPerNode*max(1, d.NodeCount) != ji.req
	// Pooled, the job may start in its slowest partition: only when it ends
	// there within its time limit.
	slow := ji.job.TimeLimit > 0 && (dur <= 0 || seconds(dur.Seconds()*ji.slowdown) > ji.job.TimeLimit)
	if d.Start || !d.NotBefore.IsZero() || resized || slow {
		return ji.isl.part.Name
	}
	if all := strings.Join(ji.job.Partitions, ","); ji.job.Partition != all {
		return all
	}
	return ""
}
