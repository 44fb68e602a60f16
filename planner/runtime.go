package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// The run times the plan gives jobs: the modelled run at a size, capped by
// the time limit where Slurm ends a job, what is left of a restarted job's
// work, and when a waiting job has waited too long.

// durationAt is the job's predicted run time on (w, p) in its island.
func (c *cycle) durationAt(ji *jobInfo, w, p int) (time.Duration, Reason) {
	gpn := c.o.NodeGPUs
	if ji.isl != nil && ji.isl.maxGPN > 0 {
		gpn = ji.isl.maxGPN
	}
	return ji.model.duration(ji.job, w, p, gpn, ji.kappa, c.o)
}

// requestedRun is the job's predicted run time at its requested size,
// kept in its memo entry unless it came from a Predictor whose answers
// may change (as options: cacheable): every other input is in the entry's
// key or the cluster's static shape.
func (c *cycle) requestedRun(ji *jobInfo) time.Duration {
	e := ji.memo
	if e != nil && e.runOK {
		return e.runDur
	}
	d, r := c.durationAt(ji, max(1, ji.req), max(1, ji.pmin))
	if e != nil && (c.stablePred || r == ReasonModelled) {
		e.runDur, e.runOK = d, true
	}
	return d
}

// workLeft is the fraction of a restarted job's work still to do, from
// the GPU service it attained (Job.AttainedGPUSeconds, over all its runs).
// The estimate is conservative: the service includes each restart's
// checkpoint and start-up (taken off at the restart cost per restart on
// its current GPUs), and the sizes it ran at are not known, so the rest is
// valued at the least efficient size of its range (the most GPU time for
// the whole work). So a restart is never sized too slow for its time
// limit. 1 for a job that never restarted, and in the simulator's ideal
// mode (Options.Reshape), whose policies keep their published behaviour.
func (c *cycle) workLeft(ji *jobInfo) float64 {
	j := ji.job
	if c.o.Reshape || j.Restarts == 0 || j.AttainedGPUSeconds <= 0 || ji.req == 0 || ji.isl == nil {
		return 1
	}
	most := 0.0 // GPU-seconds of the whole work at the least efficient size
	for _, w := range append(workerGrid(ji, ji.isl.maxGPN, c.o.MaxOptionsPerJob), ji.req) {
		d, _ := c.durationAt(ji, w, max(1, ji.pmin))
		most = max(most, d.Seconds()*float64(w))
	}
	if most <= 0 {
		return 1
	}
	useful := j.AttainedGPUSeconds - float64(j.Restarts*ji.req)*JobRestartCost(ji.hints, *c.o).Seconds()
	return math.Min(1, math.Max(0.05, 1-useful/most))
}

// starved says whether a pending job waited long enough to be promoted
// ahead of the plan's order: longer than StarvationAge, and either longer
// than StarvationMaxWait or StarvationStretch times its own modelled run
// time. Relative to the job's length, so that a queue in which every job
// waits a day does not turn into age order (short jobs are promoted long
// before long ones), and bounded, so that no job waits forever.
func (c *cycle) starved(ji *jobInfo) bool {
	j := ji.job
	if j.State != JobPending || j.SubmitTime.IsZero() {
		return false
	}
	wait := c.s.Now.Sub(j.SubmitTime)
	if wait <= c.o.StarvationAge {
		return false
	}
	if wait >= c.o.StarvationMaxWait || c.o.StarvationStretch < 0 {
		return true
	}
	return c.waitedTimes(ji, wait, c.o.StarvationStretch)
}

// waitedTimes says whether a wait is at least k times the job's own
// modelled run at its requested size (starved, promoteEarly).
func (c *cycle) waitedTimes(ji *jobInfo, wait time.Duration, k float64) bool {
	d, _ := c.durationAt(ji, max(1, ji.size), 0)
	return float64(wait) >= k*float64(d)
}

// runAt is the run the plan gives a pending job on w workers and p
// servers: its modelled run (durationAt), never past its time limit
// (issue 30). Slurm ends the job at its limit whatever the model says, so
// a job modelled longer holds its GPUs until its limit and no longer, and
// the jobs planned behind it are not pushed past Slurm's own estimate.
// Sizes are chosen on the modelled run (durationAt): the cap must not
// make a slow size look as good as a fast one.
func (c *cycle) runAt(ji *jobInfo, w, p int) (time.Duration, Reason) {
	d, r := c.durationAt(ji, w, p)
	return capAtLimit(ji.job, d), r
}

// ShrinkMargin is how far a pending job's modelled run on fewer GPUs than
// it asked for must stay under its time limit: the time model errs (2-3×
// on code it has not measured), and a job Strata shrinks runs longer than
// its user planned for, so a shrink that the model's error could push past
// the limit would end an honest job (issue 30). Sizes at or above the
// request run no longer than the user's own choice and need only fit.
const ShrinkMargin = 2.0

// fitsLimit reports whether job ji on w workers, modelled at d, may be
// planned within its time limit (none: always).
func fitsLimit(ji *jobInfo, w int, d time.Duration) bool {
	tl := ji.job.TimeLimit
	if tl <= 0 {
		return true
	}
	if ji.job.State == JobPending && w < ji.req {
		return ShrinkMargin*d.Seconds() <= tl.Seconds()
	}
	return d <= tl
}

// keepRequest drops a pending job's options below the fewest GPUs it may
// get (MinSize: its request, where the site keeps requests). It filters
// opts in place (no allocation on the plan cycle's path) and returns the
// kept prefix.
func keepRequest[T any](o *Options, ji *jobInfo, opts []T, workers func(T) int) []T {
	if ji.job.State != JobPending || len(opts) < 2 {
		return opts
	}
	by := func(a, b T) int { return cmp.Compare(workers(a), workers(b)) }
	lo, hi := workers(slices.MinFunc(opts, by)), workers(slices.MaxFunc(opts, by))
	least := MinSize(o, ji.req, lo, hi)
	if least <= lo {
		return opts
	}
	return slices.DeleteFunc(opts, func(x T) bool { return workers(x) < least })
}

// overdueEnd is when the plan expects a running job that started at
// start, with time limit tl, once it has run past its predicted end: the
// prediction was wrong, by how much nobody knows, so the plan takes
// Slurm's own view, its time limit (Slurm's backfill reserves by it);
// without a limit, that it runs as long again as it has run. Expecting it
// within the next interval instead, cycle after cycle, promised the GPUs
// of a job that ran on for hours to the wide job waiting for them, while
// narrower jobs were started into the room left beside it: the wide job
// waited until the overdue one ended (docs/planner.md, "Running jobs
// past their prediction").
func (c *cycle) overdueEnd(start time.Time, tl time.Duration) time.Time {
	if tl > 0 {
		return start.Add(tl)
	}
	return c.s.Now.Add(c.s.Now.Sub(start))
}

// behindOverdue adds ReasonBehindOverdue to a waiting job's decision d
// whose planned start is the expected end of an overdue running job of its
// island (the first in the island's list), naming that job: a start
// planned at another job's time limit is explained by it.
func (c *cycle) behindOverdue(pl *planned, d *Decision) {
	isl := pl.ji.isl
	if pl.start || isl == nil || d.PredictedStart.IsZero() || !d.PredictedStart.After(c.s.Now) {
		return
	}
	if c.overdueBy == nil { // once per plan: few running jobs are overdue
		c.overdueBy = map[*island][]*jobInfo{}
		for _, is := range c.islands {
			for _, r := range is.running {
				if r.overdue && !r.leaving {
					c.overdueBy[is] = append(c.overdueBy[is], r)
				}
			}
		}
	}
	for _, r := range c.overdueBy[isl] {
		if r.end.Sub(d.PredictedStart).Abs() >= time.Second {
			continue
		}
		ran, at := c.s.Now.Sub(r.job.StartTime), r.end.UTC().Format("2006-01-02T15:04")
		var note string
		switch tl := r.job.TimeLimit; {
		case tl > 0 && ran >= tl:
			note = fmt.Sprintf("planned for when job %d ends: it has run %s, past its predicted end and its time limit %s", r.job.ID, limitText(ran), limitText(tl))
		case tl > 0:
			note = fmt.Sprintf("planned for when job %d reaches its time limit %s (%s): it has run %s, past its predicted end", r.job.ID, limitText(tl), at, limitText(ran))
		default:
			note = fmt.Sprintf("planned for when job %d has run as long again (%s): it has run %s, past its predicted end, with no time limit", r.job.ID, at, limitText(ran))
		}
		d.Reasons = append(d.Reasons, ReasonBehindOverdue)
		d.Detail = joinDetail(d.Detail, note)
		return
	}
}

// capAtLimit is d, at most the job's time limit (none: d).
func capAtLimit(j *Job, d time.Duration) time.Duration {
	if tl := j.TimeLimit; tl > 0 && d > tl {
		return tl
	}
	return d
}

// runningEnd predicts when a running job ends: start + predicted duration
// on its GPUs (predictEnd, computed once per cycle), at least one interval
// from now; one interval from now when it is leaving.
func (c *cycle) runningEnd(ji *jobInfo) time.Time {
	if ji.leaving { // it checkpoints and requeues itself: its GPUs free up soon
		return c.soonest
	}
	return ji.end
}

// runningLeft is runningEnd − Now: one interval for a leaving job, else
// its predicted end's (jobInfo.left).
func (c *cycle) runningLeft(ji *jobInfo) time.Duration {
	if ji.leaving {
		return c.o.Interval
	}
	return ji.left
}

// predictEnd is runningEnd of a running job that is not leaving: its
// start plus its run at its size, what is left of its work from now for a
// restarted job, never past its time limit (Slurm ends it there at the
// latest) nor within one interval from now. A job already past the end so
// predicted is expected at overdueEnd.
func (c *cycle) predictEnd(ji *jobInfo) time.Time {
	d := c.requestedRun(ji)
	start, tl := ji.job.StartTime, ji.job.TimeLimit
	var end time.Time
	switch f := c.workLeft(ji); {
	case f < 1: // restarted
		end = c.s.Now.Add(seconds(d.Seconds() * f))
		if tl > 0 && !start.IsZero() && end.After(start.Add(tl)) {
			end = start.Add(tl)
		}
	case start.IsZero():
		end = c.s.Now.Add(d)
	default: // start+d after start+tl exactly when d > tl
		if tl > 0 && d > tl {
			d = tl
		}
		end = start.Add(d)
		if end.Before(c.s.Now) {
			end, ji.overdue = c.overdueEnd(start, tl), true
		}
	}
	if end.Before(c.soonest) {
		end = c.soonest
	}
	return end
}
