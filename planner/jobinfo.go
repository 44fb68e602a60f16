package planner

import (
	"strings"
	"time"
)

// A job's info for one plan: what depends on its request, its hints and
// the cluster's static shape (kept in the memo), and what is set again
// every cycle.

// newJobInfo parses the job's hints and derives its limits for planning
// in island isl (nil: none; from the memo when the cycle has one and
// neither the job nor its island changed).
func (c *cycle) newJobInfo(j *Job, isl *island) *jobInfo {
	if c.memo == nil {
		ji := c.staticJobInfoIn(j, isl)
		c.setDynamic(ji)
		return ji
	}
	part := ""
	if isl != nil {
		part = isl.part.Name
	}
	e, ok, dup := c.memo.entry(j, part)
	if dup { // the snapshot holds the ID twice: plan the copy without the memo
		ji := c.staticJobInfoIn(j, isl)
		c.setDynamic(ji)
		return ji
	}
	if !ok {
		e.info = *c.staticJobInfoIn(j, isl)
	}
	// The entry's jobInfo is reused: its static fields are never written
	// after staticJobInfoIn, and the memo serves one Plan call at a time.
	ji := &e.info
	ji.job, ji.isl, ji.memo = j, isl, e
	ji.chosen, ji.choice, ji.slowdown = false, "", 0
	c.setDynamic(ji)
	return ji
}

// setDynamic sets the jobInfo fields that depend on more than the job's
// request and the cluster's static shape.
func (c *cycle) setDynamic(ji *jobInfo) {
	j := ji.job
	ji.bbPool = c.poolIndex(j.BurstBufferPool, ji.bb)
	if k := ji.bbPool; k >= 0 {
		if g := c.pools[k].GranularityBytes; g > 1 && ji.bb%g != 0 { // Slurm allocates whole units
			ji.bb = (ji.bb/g + 1) * g
		}
	}
	ji.aged = c.starved(ji)
	ji.weight = ji.userW * c.siteFactor(j)
	// A deadline already past when the job was submitted buys no urgency:
	// it is ignored, with a reason. One that passes while the job waits
	// still counts (the job is late: edf and the tardiness term hurry it).
	ji.deadline, ji.deadlinePast = time.Time{}, false
	if ji.hintErr == nil {
		ji.deadline = ji.hints.Deadline
	}
	since := j.SubmitTime
	if since.IsZero() || since.After(c.s.Now) {
		since = c.s.Now
	}
	if !ji.deadline.IsZero() && ji.deadline.Before(since) {
		ji.deadline, ji.deadlinePast = time.Time{}, true
	}
	ji.notYet = c.eligibleIn(j)
	ji.leaving = j.State == JobRunning && !j.Signalled.IsZero()
	ji.end, ji.left, ji.overdue = time.Time{}, 0, false
	if j.State == JobRunning {
		ji.end = c.predictEnd(ji)
		ji.left = ji.end.Sub(c.s.Now)
	}
	ji.canPreempt = j.State == JobRunning && (c.o.Reshape || c.mayPreempt(ji))
	c.setBurstBuffer(ji)
}

// mayPreempt reports whether the plan may stop running job ji on Slurm: it
// is Preemptible (preempt=yes, requeueable, not non-cooperative), not yet
// signalled, below its daily preemption cap (Options.MaxPreemptPerDay),
// and it has run at least Options.MinRunBeforePreempt since its last
// start.
func (c *cycle) mayPreempt(ji *jobInfo) bool {
	j := ji.job
	if !ji.hasHint || !ji.hints.Preempt || ji.keep || !j.Requeue || j.NonCooperative ||
		!j.Signalled.IsZero() || j.PreemptsToday >= c.o.MaxPreemptPerDay {
		return false
	}
	return RanLongEnough(j, c.s.Now, c.o.MinRunBeforePreempt)
}

// staticJobInfoIn derives what depends only on the job's request, its
// hints and the cluster's static shape, for planning in island isl.
func (c *cycle) staticJobInfoIn(j *Job, isl *island) *jobInfo {
	ji := &jobInfo{job: j, isl: isl, weight: 1, req: j.GPUs(), bbPool: -1}
	ji.hints, ji.hasHint, ji.hintErr = ParseHints(j.Comment)
	h := ji.hints
	ji.keep = ji.hintErr != nil || h.NoRewrite
	if ji.hintErr != nil {
		ji.hasHint = false
		h = Hints{}
	}
	ji.model = newJobModel(h, ji.hasHint, c.o)
	ji.weight = h.JobWeight()
	ji.gmin, ji.gmax = ji.req, ji.req
	ji.fixed = !ji.hasHint || h.GPUMax == 0 || ji.keep || ji.req == 0 || j.GPUsPerTask > 0 || j.SizeLocked
	if !ji.fixed {
		ji.gmin, ji.gmax = h.GPUMin, h.GPUMax
	}
	applyLimits(ji, c.o.Limits)
	ji.userW = ji.weight
	ji.size = min(max(ji.req, ji.gmin), ji.gmax)
	if ji.model.kind != kindOpaque && ji.model.arch == ArchPS {
		ji.pmin, ji.pmax, ji.psAuto = max(1, h.PSMin), max(1, h.PSMax), h.PSAuto || h.PSMax == 0
		switch {
		case ji.psAuto && c.o.PSChoice == "w":
			ji.psPerW = true
		case ji.psAuto && c.o.PSChoice == "1":
			ji.psAuto, ji.pmin, ji.pmax = false, 1, 1
		}
	}
	ji.cpuPerW = float64(j.CPUs) / float64(max(1, ji.req))
	ji.memPerW = j.MemoryMB / int64(max(1, ji.req))
	serversWritten(ji)
	if h.MemBytes > 0 {
		ji.memPerW = h.MemBytes >> 20
	}
	ji.bb = max(j.BurstBufferBytes, h.BBBytes)
	ji.deadline = h.Deadline
	gt := j.GPUType
	if gt == "" && ji.isl != nil {
		gt = ji.isl.gpuType
	}
	ji.kappa = ji.model.onGPU(c.o, gt)
	c.calibrate(ji, gt)
	if have := c.o.GPUMemoryMB[strings.ToLower(gt)]; have > 0 {
		if need, ok := ji.model.gpuMemBytes(); ok && need>>20 > have {
			ji.gpuMemNeed, ji.gpuMemHave = need>>20, have
		}
	}
	return ji
}
