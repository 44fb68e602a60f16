package planner

import (
	"context"
	"slices"
	"sort"
)

// TiresiasThreshold is the default attained service (GPU-seconds) at which
// a job moves from the first to the second queue: one GPU-hour
// (Options.TiresiasThreshold overrides it).
const TiresiasThreshold = 3600.0

// Tiresias is discretised two-dimensional least-attained-service (Gu et
// al., NSDI'19) with two queues: jobs with less than
// Options.TiresiasThreshold GPU-seconds of attained service (Job.AttainedGPUSeconds) come first;
// inside a queue, first come first served; aged jobs are promoted to the
// front. It needs no duration. GPUs are given in that order to running
// jobs it may preempt and pending jobs alike (skipping jobs that do not
// fit); running jobs that lose their GPUs get ActionPreempt. On Slurm only
// preemptible jobs compete (Preemptible); a preempted job keeps its GPUs
// until it has checkpointed and requeued itself, so the pending jobs that
// win them wait for them (Slurm starts them when they free up) and the
// job restarts at its size later. In the simulator's ideal mode
// (Options.Reshape) every running job competes and is stopped at once.
type Tiresias struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*Tiresias)(nil)

// Plan implements Policy.
func (p *Tiresias) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	return planIslands(ctx, s, &p.o, &p.memo, "tiresias", p.planIsland)
}

func (p *Tiresias) queue(ji *jobInfo) int {
	if ji.aged || ji.job.AttainedGPUSeconds < p.o.TiresiasThreshold {
		return 0
	}
	return 1
}

func (p *Tiresias) planIsland(c *cycle, isl *island) []*planned {
	all := append(append([]*jobInfo(nil), isl.running...), isl.jobs...)
	sort.SliceStable(all, func(a, b int) bool {
		x, y := all[a], all[b]
		if qx, qy := p.queue(x), p.queue(y); qx != qy {
			return qx < qy
		}
		if !x.job.SubmitTime.Equal(y.job.SubmitTime) {
			return x.job.SubmitTime.Before(y.job.SubmitTime)
		}
		return x.job.ID < y.job.ID
	})
	budget, _, _ := c.free(isl)
	all = slices.DeleteFunc(all, func(ji *jobInfo) bool { return ji.job.State == JobRunning && !ji.canPreempt })
	for _, ji := range all { // running jobs that may not be preempted keep their GPUs
		if ji.job.State == JobRunning {
			budget += ji.req
		}
	}
	var out, starts []*planned
	for k, ji := range all {
		n := ji.size
		if ji.job.State == JobRunning {
			n = ji.req
		} else if _, ok := c.sizeShape(ji); !ok {
			pl := c.newPlanned(ji)
			pl.key, pl.reasons = float64(k), append([]Reason{ReasonNoShapeFits}, sizeReasons(ji, ji.size)...)
			out = append(out, pl)
			continue
		}
		fits := n <= budget && ji.notYet == 0 // Slurm does not consider a job before its begin time
		if fits {
			budget -= n
		}
		if ji.job.State == JobRunning {
			pl := c.keepDecision(ji)
			if !fits {
				c.preempt(pl)
			}
			out = append(out, pl)
			continue
		}
		d, r := c.runAt(ji, max(1, ji.size), psFor(ji, ji.size))
		pl := c.newPlanned(ji)
		pl.dur, pl.key = d, float64(k)
		pl.reasons = append(sizeReasons(ji, ji.size), r)
		switch {
		case fits:
			starts = append(starts, pl)
		case ji.notYet > 0:
			pl.reasons = append([]Reason{ReasonBeginTime}, pl.reasons...)
		default:
			pl.reasons = append([]Reason{ReasonWaitResources}, pl.reasons...)
		}
		out = append(out, pl)
	}
	for _, pl := range starts {
		never := false
		c.admitFixed(pl, &never)
	}
	return out
}

// preempt turns a running job's keep into ActionPreempt at the same size.
// In the simulator's ideal mode the job stops at once and its GPUs are
// free for this plan's starts; on Slurm it keeps them until it has
// checkpointed and requeued itself (leaving), and the decision's size is
// zero: it restarts at the size it had.
func (c *cycle) preempt(pl *planned) {
	pl.action, pl.reasons = ActionPreempt, []Reason{ReasonPreempted}
	if c.o.Reshape {
		c.releaseRunning(pl.ji)
		return
	}
	pl.ji.leaving = true
	pl.w, pl.p, pl.sh = 0, 0, shape{}
}

// releaseRunning returns a running job's GPUs, CPUs and memory to its
// nodes (GPUAlloc when known, else the GPUs spread over NodeList).
func (c *cycle) releaseRunning(ji *jobInfo) { c.moveRunning(ji, 1) }

// holdRunning takes back what releaseRunning returned.
func (c *cycle) holdRunning(ji *jobInfo) { c.moveRunning(ji, -1) }

func (c *cycle) moveRunning(ji *jobInfo, sign int) {
	j := ji.job
	idx := map[string]int{}
	for _, k := range ji.isl.nodes {
		idx[c.nodes[k].name] = k
	}
	give := func(name string, gpus int) {
		k, ok := idx[name]
		if !ok {
			return
		}
		share := float64(gpus) / float64(max(1, ji.req))
		c.nodes[k].freeGPU += sign * gpus
		c.nodes[k].freeCPU += sign * int(float64(j.CPUs)*share)
		c.nodes[k].freeMem += int64(sign) * int64(float64(j.MemoryMB)*share)
	}
	if len(j.GPUAlloc) > 0 {
		for _, a := range j.GPUAlloc {
			give(a.Node, len(a.Indices))
		}
		return
	}
	for _, n := range j.NodeList {
		give(n, ji.req/max(1, len(j.NodeList)))
	}
}
