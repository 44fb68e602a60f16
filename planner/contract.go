package planner

import "slices"

// deferFitting keeps the plan's waiting jobs waiting in Slurm. Strata
// writes priorities and sizes; between its cycles slurmctld's main
// scheduler and backfill start every job they can. The plan's starts come
// first in the priority order and fit, so Slurm starts them; a waiting job
// whose planned shape does not fit the nodes this cycle's starts leave free
// cannot be started either. A waiting job that does fit could be started
// before the plan wants it to (by backfill, which judges by time limits,
// not by the plan's predicted durations): it gets NotBefore, its predicted
// start (at least one interval from now), which Strata writes as its begin
// time. The plan's starts are then exactly the jobs Slurm can start now.
func (c *cycle) deferFitting(ranked []*planned) {
	earliest := c.s.Now.Add(c.o.Interval)
	for _, pl := range ranked {
		ji := pl.ji
		if pl.start || pl.action != ActionUpdate || ji.isl == nil || cannotRun(pl) || ji.notYet > 0 {
			continue // (Slurm starts no job before its begin time or dependency)
		}
		if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
			continue // its data cannot be staged now: Slurm waits anyway
		}
		if !c.canPlace(ji.isl, pl.sh, ji.cpuPerW, ji.memPerW) {
			continue
		}
		pl.notBefore = earliest
		if pl.hasStart && pl.predStart.After(earliest) {
			pl.notBefore = pl.predStart
		}
		rs := slices.DeleteFunc(slices.Clone(pl.reasons), func(r Reason) bool { return r == ReasonWaitResources })
		pl.reasons = append([]Reason{ReasonDeferred}, rs...)
	}
}

// cannotRun reports a plan whose job no node set of its partition can
// hold: deferring it would change nothing.
func cannotRun(pl *planned) bool {
	return len(pl.reasons) > 0 && (pl.reasons[0] == ReasonNoShapeFits || pl.reasons[0] == ReasonMemoryInfeasible)
}
