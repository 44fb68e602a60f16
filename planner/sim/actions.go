package sim

import (
	"slices"

	"github.com/strata-hpc/strata/planner"
)

// start places a pending job with the decision's shape (GPUsPerNode ×
// NodeCount, else Workers anywhere, else the job's own request). A shape
// that does not fit the free GPUs is a policy error: the job stays pending
// and the start is counted in Result.RejectedStarts.
func (e *engine) start(i int, d *planner.Decision, t float64) bool {
	j := &e.jobs[i]
	per, count, total := d.GPUsPerNode, d.NodeCount, shapeGPUs(d)
	if total <= 0 {
		per, count, total = j.pj.GPUsPerNode, j.pj.Nodes, j.tj.GPUs
	}
	slots, ok := e.cl.place(i+1, per, count, total, d.Placement)
	if !ok {
		e.res.RejectedStarts++
		return false
	}
	j.slots, j.gpus = slots, total
	j.dur = e.duration(j, total)
	j.phase, j.lastT, j.runStart = phaseRunning, t, t
	if j.firstStart < 0 {
		j.firstStart = t
		e.res.startGPUs += total
		if total != j.tj.GPUs {
			e.res.ChangedAllocations++
		}
	}
	e.running = insertSorted(e.running, i)
	return true
}

// duration is the truth run time of j on w GPUs, counting linear guesses.
func (e *engine) duration(j *job, w int) float64 {
	d, linear := e.cfg.Truth.Duration(j.tj, w)
	if linear {
		e.res.LinearScaled++
	}
	return d
}

// preempt stops a running job; it keeps its progress (checkpoint) and pays
// the restart penalty when it starts again.
func (e *engine) preempt(i int) {
	j := &e.jobs[i]
	e.cl.release(j.slots)
	j.slots, j.gpus, j.phase = nil, 0, phasePending
	j.penalty = e.cfg.RestartPenalty.Seconds()
	j.restarts++
	e.res.Preemptions++
	e.running = slices.DeleteFunc(e.running, func(x int) bool { return x == i })
	e.pending = insertSorted(e.pending, i)
}

// resize moves a running job to the decision's shape, restarting it with
// the penalty. When the new shape does not fit, the job keeps its GPUs and
// the resize is counted in Result.RejectedResizes.
func (e *engine) resize(i int, d *planner.Decision, t float64) {
	j := &e.jobs[i]
	old := j.slots
	e.cl.release(old)
	slots, ok := e.cl.place(i+1, d.GPUsPerNode, d.NodeCount, shapeGPUs(d), d.Placement)
	if !ok {
		e.cl.restore(old, i+1)
		e.res.RejectedResizes++
		return
	}
	j.slots, j.gpus = slots, shapeGPUs(d)
	j.dur = e.duration(j, j.gpus)
	j.penalty = e.cfg.RestartPenalty.Seconds()
	j.restarts++
	j.runStart = t
	e.res.Resizes++
}

// compactPending drops jobs that left the pending phase.
func (e *engine) compactPending() {
	e.pending = slices.DeleteFunc(e.pending, func(i int) bool { return e.jobs[i].phase != phasePending })
}

// restore re-takes exactly the GPUs of slots for owner.
func (c *cluster) restore(slots []slot, owner int) {
	for _, s := range slots {
		nd := &c.nodes[s.node]
		for _, g := range s.idx {
			nd.owner[g] = owner
		}
		nd.free -= len(s.idx)
		c.free -= len(s.idx)
	}
}
