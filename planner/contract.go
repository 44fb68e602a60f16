package planner

import "time"

// deferWaiting keeps the plan's waiting jobs waiting in Slurm. Strata
// writes priorities and sizes; between its cycles slurmctld's main
// scheduler and backfill start every job they can. The plan's starts come
// first in the priority order and fit, so Slurm starts them. A waiting job
// gets NotBefore, which Strata writes as its begin time, when Slurm could
// otherwise start it before the plan does:
//   - it fits now at its planned size (backfill judges by time limits, not
//     by the plan's predicted durations, and would start it into a gap the
//     plan keeps for others): NotBefore is its planned start, at least one
//     interval ahead. The plan's starts are then exactly the jobs Slurm can
//     start now;
//   - it is long (planned run over Options.LongJob) and the plan holds it
//     back beyond the first moment running jobs free room for it (for jobs
//     ranked ahead, or the long-job share), by more than one interval: a
//     job ending early would let Slurm start it into that room and hold the
//     GPUs for hours the plan keeps for shorter jobs. NotBefore is its
//     planned start.
//
// A shorter job that does not fit now keeps no begin time, however far the
// plan holds it back: Slurm orders it by its priority (and Strata's nice)
// and backfill reserves room for it. Deferring it too was measured and
// dropped (issue 31): a job with a begin time is invisible to backfill's
// reservations, so the GPUs it waited for went to later, longer jobs and
// its planned start slipped cycle after cycle — users of wide short jobs
// paid up to 2.7× their average under Slurm alone; with long jobs still
// deferred the mean JCT and the worst runs are better than with neither
// deferred (docs/evaluation.d/accountability/33-site-policy-default-reading.md).
func (c *cycle) deferWaiting(ranked []*planned) {
	soon := c.s.Now.Add(c.o.Interval)
	profiles := map[*island]*gpuProfile{}
	ahead := map[*island]int64{} // Slurm's highest priority ranked so far (prioritymode.go)
	for _, pl := range ranked {
		ji := pl.ji
		outranks := c.siteOutranks(ahead, pl, int64(len(ranked)))
		if c.deferStageIn(pl) { // its stage-in is to start later (bbplan.go)
			pl.reasons = deferredReasons(pl.reasons)
			continue
		}
		if pl.start || pl.action != ActionUpdate || ji.isl == nil || cannotRun(pl) || ji.notYet > 0 {
			continue // (Slurm starts no job before its begin time or dependency)
		}
		if outranks {
			continue // Slurm's priority puts it first, whatever nice Strata writes
		}
		switch {
		case ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb:
			continue // its data cannot be staged now: Slurm waits anyway
		case c.canPlace(ji.isl, pl.sh, ji.cpuPerW, ji.memPerW):
			pl.notBefore = soon
			if pl.hasStart && pl.predStart.After(soon) {
				pl.notBefore = pl.predStart
			}
		case c.longRun(pl.dur) && pl.hasStart && pl.predStart.After(soon) && pl.predStart.After(c.roomAt(profiles, pl).Add(time.Second)):
			pl.notBefore = pl.predStart // a long job held back beyond its room: see above
		default:
			continue
		}
		pl.reasons = deferredReasons(pl.reasons)
	}
}

// deferredReasons are the reasons of a job Strata defers: deferred first,
// then rs but wait_resources (a new slice: rs may be shared).
func deferredReasons(rs []Reason) []Reason {
	out := make([]Reason, 1, len(rs)+1)
	out[0] = ReasonDeferred
	for _, r := range rs {
		if r != ReasonWaitResources {
			out = append(out, r)
		}
	}
	return out
}

// roomAt is the first time the island's running jobs (and this cycle's
// starts) will have freed enough GPUs for the plan's size of the job,
// others' plans aside; far in the future when they never will.
func (c *cycle) roomAt(profiles map[*island]*gpuProfile, pl *planned) time.Time {
	isl := pl.ji.isl
	p := profiles[isl]
	if p == nil {
		free, _, _ := c.free(isl)
		isl.relTmp = c.runningReleases(isl.relTmp[:0], isl, nil)
		p = newProfileSorted(&isl.profs[2], free, isl.relTmp, nil, 0)
		profiles[isl] = p
	}
	t, ok := p.earliest(pl.w, pl.dur.Seconds(), 0)
	if !ok {
		return c.s.Now.Add(MaxModelledDuration)
	}
	return c.s.Now.Add(seconds(t))
}

// cannotRun reports a plan whose job no node set of its partition can
// hold: deferring it would change nothing.
func cannotRun(pl *planned) bool {
	return len(pl.reasons) > 0 && (pl.reasons[0] == ReasonNoShapeFits || pl.reasons[0] == ReasonMemoryInfeasible)
}
