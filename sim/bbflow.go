package sim

import "math"

// Shared stage bandwidth (ClusterSpec.BurstBufferPoolBps, "bbpoolbw=" in a
// cluster spec). A burst buffer's or parallel file system's total
// bandwidth is shared by its clients: the transfers under way (stage-ins
// and stage-outs) share it equally, each at most the bandwidth per job
// (BurstBufferBps). So a transfer's end is not known when it starts: every
// start or end of another transfer changes the rate of all of them, and
// their ends are re-timed from the bytes each has left (processor
// sharing). Without a total, each transfer runs at the bandwidth per job
// from start to end (slurmbb.go's transfer) and nothing here acts.

// shared reports whether the pool's transfers share a total bandwidth.
func (e *engine) shared() bool { return e.cl.bb != nil && e.cl.spec.BurstBufferPoolBps > 0 }

// bbRate is each transfer's rate (bytes/s) with n under way.
func (e *engine) bbRate(n int) float64 {
	r := e.cl.spec.BurstBufferPoolBps / float64(max(n, 1))
	if bw := e.cl.spec.BurstBufferBps; bw > 0 {
		r = min(r, bw)
	}
	return r
}

// bbSettle takes from every transfer under way the bytes it moved since
// the last change, at the rate of that time.
func (e *engine) bbSettle(t float64) {
	b := e.cl.bb
	if dt := t - b.flowAt; dt > 0 && b.flows > 0 {
		moved := e.bbRate(b.flows) * dt
		for i := range b.jobs {
			if j := &b.jobs[i]; j.flowing {
				j.left = math.Max(0, j.left-moved)
			}
		}
	}
	b.flowAt = max(b.flowAt, t)
}

// bbRetime sets the end of every transfer under way from the bytes it has
// left at the rate for the transfers now under way.
func (e *engine) bbRetime(t float64) {
	b := e.cl.bb
	if b.flows == 0 {
		return
	}
	r := e.bbRate(b.flows)
	for i := range b.jobs {
		j := &b.jobs[i]
		if !j.flowing {
			continue
		}
		end := t + j.left/r
		switch j.phase {
		case bbStaging:
			j.readyAt = end
		case bbStagingOut:
			j.freeAt = end
		}
	}
}

// bbFlowStart adds job i's transfer of bytes at t (a stage-in when the
// job is staging, a stage-out when its output goes out).
func (e *engine) bbFlowStart(i int, bytes int64, t float64) {
	if !e.shared() || bytes <= 0 {
		return
	}
	e.bbSettle(t)
	j := &e.cl.bb.jobs[i]
	j.flowing, j.left = true, float64(bytes)
	e.cl.bb.flows++
	e.bbRetime(t)
}

// bbFlowEnd removes job i's transfer at t (done, or cut short by a
// requeue); the others speed up.
func (e *engine) bbFlowEnd(i int, t float64) {
	if !e.shared() || !e.cl.bb.jobs[i].flowing {
		return
	}
	e.bbSettle(t)
	j := &e.cl.bb.jobs[i]
	j.flowing, j.left = false, 0
	e.cl.bb.flows--
	e.bbRetime(t)
}
