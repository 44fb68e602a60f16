package sim

import (
	"slices"
	"sort"

	"github.com/strata-hpc/strata/planner"
)

// start places a pending job with the decision's shape (GPUsPerNode ×
// NodeCount, else Workers anywhere, else the job's own request) and holds
// its burst-buffer bytes in the pool until it ends or is preempted. A shape
// that does not fit the free GPUs (or data that does not fit the pool) is a
// policy error: the job stays pending and the start is counted in
// Result.RejectedStarts.
func (e *engine) start(i int, d *planner.Decision, t float64) bool {
	j := &e.jobs[i]
	per, count, total := d.GPUsPerNode, d.NodeCount, shapeGPUs(d)
	if total <= 0 {
		per, count, total = j.pj.GPUsPerNode, j.pj.Nodes, j.tj.GPUs
	}
	bb := j.pj.BurstBufferBytes
	if bb > 0 && e.cl.bbUsed+bb > e.cl.spec.BurstBufferBytes {
		e.res.RejectedStarts++ // the pool cannot hold the job's data now
		return false
	}
	slots, ok := e.placeJob(i, e.decidedPart(j, d), per, count, total, d.Placement)
	if !ok {
		e.res.RejectedStarts++
		return false
	}
	e.cl.bbUsed += bb
	e.begin(i, slots, total, t)
	return true
}

// begin makes pending job i run on slots (total GPUs) from t.
func (e *engine) begin(i int, slots []slot, total int, t float64) {
	j := &e.jobs[i]
	j.slots, j.gpus = slots, total
	j.view = nil
	j.dur = e.duration(j, total)
	e.res.lostGPUSeconds += float64(total) * j.penalty // a restart's start-up (0 at a first start)
	j.phase, j.lastT, j.runStart = phaseRunning, t, t
	if j.firstStart < 0 {
		j.firstStart, j.firstGPUs = t, total
		if c := e.cfg.calib; c != nil {
			j.calibAtStart = c.factor(j)
		}
		e.res.startGPUs += total
		if total != j.tj.GPUs {
			e.res.ChangedAllocations++
		}
	}
	e.running = insertSorted(e.running, i)
}

// duration is the truth run time of j on w GPUs, counting linear guesses.
func (e *engine) duration(j *job, w int) float64 {
	d, linear := e.cfg.Truth.Duration(j.tj, w)
	if j.tj.PS { // its servers count (psshare.go)
		d, linear = PSSeconds(j.tj, w, psServers(j), e.cl.spec.GPUsPerNode)
	}
	if linear {
		e.res.LinearScaled++
	}
	if len(j.slots) > 0 { // on another GPU type than the trace's (islands.go)
		d /= e.speedOf(j.slots[0].node)
	}
	return d
}

// preempt stops a running job; it keeps its progress (checkpoint) and pays
// the restart penalty when it starts again.
func (e *engine) preempt(i int) {
	j := &e.jobs[i]
	e.cl.release(j.slots)
	e.cl.bbUsed -= j.pj.BurstBufferBytes
	j.slots, j.gpus, j.phase = nil, 0, phasePending
	j.view = nil
	j.penalty = e.cfg.RestartPenalty.Seconds()
	j.restarts++
	e.res.Preemptions++
	e.running = slices.DeleteFunc(e.running, func(x int) bool { return x == i })
	e.pending = insertSorted(e.pending, i)
}

// resizeAll moves running jobs to their decisions' shapes, restarting
// each with the penalty. A plan's resizes are computed together (one job
// may move onto GPUs another one leaves), so all resizing jobs release
// their GPUs first; then shrinking jobs are placed before growing ones.
// When a new shape does not fit, the job gets its old GPUs back (or, if
// they were taken, its old count anywhere, else it is preempted) and the
// resize is counted in Result.RejectedResizes.
func (e *engine) resizeAll(ds []*planner.Decision, t float64) {
	old := make([][]slot, len(ds))
	for n, d := range ds {
		j := &e.jobs[d.JobID-1]
		old[n] = j.slots
		e.cl.release(j.slots)
	}
	order := make([]int, len(ds))
	for n := range order {
		order[n] = n
	}
	delta := func(n int) int { return shapeGPUs(ds[n]) - e.jobs[ds[n].JobID-1].gpus }
	sort.SliceStable(order, func(a, b int) bool { return delta(order[a]) < delta(order[b]) })
	for _, n := range order {
		d := ds[n]
		i := int(d.JobID) - 1
		j := &e.jobs[i]
		slots, ok := e.placeJob(i, e.partOfSlots(old[n]), d.GPUsPerNode, d.NodeCount, shapeGPUs(d), d.Placement)
		if !ok {
			e.res.RejectedResizes++
			e.keepOrPreempt(i, old[n])
			continue
		}
		changed := shapeGPUs(d) != j.gpus
		j.slots, j.gpus = slots, shapeGPUs(d)
		j.view = nil
		if changed {
			j.dur = e.duration(j, j.gpus)
			j.penalty = e.cfg.RestartPenalty.Seconds()
			e.res.lostGPUSeconds += float64(j.gpus) * j.penalty
			j.restarts++
			j.runStart = t
			e.res.Resizes++
		}
	}
}

// keepOrPreempt gives a job whose resize failed its old GPUs back, or the
// same count elsewhere, or preempts it when neither is free any more.
func (e *engine) keepOrPreempt(i int, old []slot) {
	j := &e.jobs[i]
	if e.cl.canRestore(old) {
		e.cl.restore(old, i+1)
		j.slots = old
		j.view = nil
		return
	}
	if slots, ok := e.placeJob(i, e.partOfSlots(old), 0, 0, j.gpus, nil); ok {
		j.slots = slots
		j.view = nil
		return
	}
	j.slots = nil // resizeAll released them already; preempt releases nothing more
	e.preempt(i)
}

// compactPending drops jobs that left the pending phase.
func (e *engine) compactPending() {
	e.pending = slices.DeleteFunc(e.pending, func(i int) bool { return e.jobs[i].phase != phasePending })
}

// canRestore reports whether every GPU of slots is free, and the CPUs and
// memory they held.
func (c *cluster) canRestore(slots []slot) bool {
	for _, s := range slots {
		nd := &c.nodes[s.node]
		if nd.freeCPU < s.cpus || nd.freeMem < s.mem {
			return false
		}
		for _, g := range s.idx {
			if nd.owner[g] != 0 {
				return false
			}
		}
	}
	return true
}

// restore re-takes exactly the GPUs, CPUs and memory of slots for owner.
func (c *cluster) restore(slots []slot, owner int) {
	for _, s := range slots {
		nd := &c.nodes[s.node]
		for _, g := range s.idx {
			nd.owner[g] = owner
		}
		nd.free -= len(s.idx)
		nd.freeCPU -= s.cpus
		nd.freeMem -= s.mem
		c.free -= len(s.idx)
	}
}
