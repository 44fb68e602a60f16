package planner

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
)

// andreas-elastic: ANDREAS re-plans every job at every rescheduling point,
// running ones included, with preemption and migration free in its model
// (algorithms.md A2.1). In the simulator's ideal mode (Options.Reshape)
// andreas-elastic does the same: the island's running jobs join the greedy
// with configurations for the work they have left (a size change costs a
// restart, resizePenalty); one the winning pass leaves waiting is
// preempted, one it gives another size is resized. A simulation what-if:
// Strata on Slurm never changes running jobs this way.

// andreasRunning adds the island's running jobs the plan may stop to the
// greedy, releasing what they hold.
func (c *cycle) andreasRunning(isl *island, out []*planned, jobs []*aJob, tw float64, prof *gpuProfile) ([]*planned, []*aJob) {
	for _, ji := range isl.running {
		if !ji.canPreempt || ji.leaving {
			continue
		}
		aj := &aJob{pl: c.keepDecision(ji)}
		c.andreasConfigs(ji, aj, tw*ji.weight, prof, c.remainingFraction(ji))
		if len(aj.cfgs) == 0 {
			continue
		}
		c.releaseRunning(ji)
		out = append(out, aj.pl)
		jobs = append(jobs, aj)
	}
	return out, jobs
}

// andreasElastic searches as andreas does, then applies the winning pass
// from the state before it: running jobs that keep their size stay on
// their nodes, resized ones are placed next (preempted when the new shape
// no longer fits), then the pending starts in the pass's order (waiting
// when they no longer fit: placement may differ from the pass's).
func (c *cycle) andreasElastic(isl *island, out []*planned, jobs []*aJob, rng *rand.Rand) []*planned {
	saved := c.islandNodes(isl)
	bb := append([]int64(nil), c.bbFree...)
	best := c.andreasSearch(isl, jobs, rng)
	c.restoreIsland(isl, saved, bb)
	var resized, starts []int
	for k, aj := range jobs {
		ci, ji := best.pick[k], aj.pl.ji
		switch {
		case ji.job.State != JobRunning:
			starts = append(starts, k)
		case ci < 0:
			aj.pl.action, aj.pl.reasons = ActionPreempt, []Reason{ReasonPreempted}
		case aj.cfgs[ci].w == ji.req:
			c.holdRunning(ji)
		default:
			resized = append(resized, k)
		}
	}
	for _, k := range resized {
		pl, cf := jobs[k].pl, jobs[k].cfgs[best.pick[k]]
		nodes, ok := c.place(isl, cf.sh, pl.ji.cpuPerW, pl.ji.memPerW)
		if !ok {
			pl.action, pl.reasons = ActionPreempt, []Reason{ReasonPreempted}
			continue
		}
		pl.action, pl.w, pl.p, pl.sh, pl.nodes, pl.dur = ActionResize, cf.w, cf.p, cf.sh, nodes, cf.dur
		pl.reasons = []Reason{ReasonResized, cf.r}
	}
	pos := make([]int, len(jobs))
	for p, k := range best.order {
		pos[k] = p
	}
	for _, k := range starts {
		aj := jobs[k]
		pl, ji := aj.pl, aj.pl.ji
		pl.key = float64(pos[k])
		cf, head := aj.cfgs[0], ReasonWaitResources
		if ci := best.pick[k]; ci >= 0 {
			cf = aj.cfgs[ci]
			bbOK := ji.bbPool < 0 || c.bbFree[ji.bbPool] >= ji.bb
			if nodes, ok := c.place(isl, cf.sh, ji.cpuPerW, ji.memPerW); bbOK && ok {
				head, pl.start, pl.nodes = ReasonAdmitted, true, nodes
				if ji.bbPool >= 0 {
					c.bbFree[ji.bbPool] -= ji.bb
				}
			} else if ok {
				c.release(nodes, cf.sh, ji.cpuPerW, ji.memPerW)
			}
		}
		pl.w, pl.p, pl.sh, pl.dur = cf.w, cf.p, cf.sh, cf.dur
		pl.reasons = append(append([]Reason{head}, sizeReasons(ji, cf.w)...), cf.r)
	}
	return out
}

// jobSetSeed seeds andreas-elastic's draws from the island's job IDs
// (pending, then running, each sorted by ID), not from the snapshot ID:
// ANDREAS re-plans at submissions and completions, and a plan that drew
// anew at every tick would stop and resize running jobs at every tick.
func jobSetSeed(isl *island) uint64 {
	h := fnv.New64a()
	for _, js := range [][]*jobInfo{isl.jobs, isl.running} {
		for _, ji := range js {
			h.Write(strconv.AppendInt(nil, ji.job.ID, 10))
			h.Write([]byte{','})
		}
		h.Write([]byte{';'})
	}
	return h.Sum64()
}
