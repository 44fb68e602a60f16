package sim

import (
	"context"
	"math"

	"github.com/strata-hpc/strata/decide"
)

// slurmState is the slurmctld model's clockwork: when its main scheduler
// and backfill run next, and Strata's cycle beside it.
type slurmState struct {
	conf SlurmConfig
	// eventPassAt is when an event-triggered main pass is due (+Inf: none);
	// lastEventPass when the last one ran.
	eventPassAt, lastEventPass float64
	nextPeriodic, nextBF       float64
	nextStrata, nextPrio       float64
	// bfChanged: jobs or resources changed since the last backfill cycle.
	bfChanged bool
	// rewrites counts Strata's resizes per job (the per-job cap).
	rewrites map[int64]int
	// writes counts every write Strata made to each job (the per-job write
	// cap, decide.Options.MaxWritesPerJob, as the daemon counts it).
	writes map[int64]int
	guard  decide.Options
	// comments keeps the guards' parse of each job's admin comment from
	// one cycle to the next.
	comments decide.Comments
	// decided holds the buffers of each cycle's decide.Result.
	decided decide.Buffers
	cycle   int64
	// nodes and cpus of the cluster, for the job-size priority factor.
	nodes, cpus float64
}

// slurmLoop runs the Slurm mode: jobs arrive, slurmctld's main scheduler
// and backfill start them from the priorities, GPU requests and begin
// times they have, and (unless the policy is nil: Slurm alone) Strata's
// cycle plans every interval and writes through the daemon's guards. Times
// are exact; all events at one instant are handled in a fixed order: ends,
// arrivals, Strata's cycle, priority recalculation, main pass, backfill.
func (e *engine) slurmLoop(ctx context.Context) error {
	c := e.cfg.Slurm
	spec := e.cl.spec
	s := &slurmState{conf: c, eventPassAt: math.Inf(1), lastEventPass: math.Inf(-1),
		rewrites: map[int64]int{}, writes: map[int64]int{}, guard: e.cfg.guardOptions(),
		nodes: float64(spec.Nodes), cpus: float64(spec.Nodes * spec.CPUsPerNode)}
	for i := range e.jobs {
		e.initSlurmJob(&e.jobs[i])
	}
	e.newBBState()
	t := 0.0
	for e.done+e.res.Dropped < len(e.jobs) {
		if err := ctx.Err(); err != nil {
			return err
		}
		next, ok := e.nextSlurmEvent(s, t)
		if !ok || e.stalled(next) {
			e.res.Unfinished = len(e.pending)
			break
		}
		t = next
		ended := e.advanceSlurm(s, t)
		e.bbAdvance(s, t)
		arrived := e.next
		e.arrive(t)
		for k := arrived; k < e.next; k++ {
			if j := &e.jobs[k]; j.phase == phasePending {
				j.prio = e.priority(s, j, t) // computed at submission
			}
		}
		if e.next > arrived {
			s.requestPass(t)
			s.bfChanged = true
		}
		if ended > 0 {
			s.bfChanged = true
		}
		if e.policy != nil && t >= s.nextStrata {
			if err := e.strataCycle(ctx, s, t); err != nil {
				return err
			}
			s.nextStrata = nextMultiple(t, e.cfg.Interval.Seconds(), true)
		}
		if t >= s.nextPrio {
			e.recalcPriorities(s, t)
			s.nextPrio = nextMultiple(t, c.PriorityCalcPeriod.Seconds(), true)
		}
		switch {
		case t >= s.nextPeriodic:
			e.mainPass(s, t, 0)
			s.nextPeriodic = nextMultiple(t, c.SchedInterval.Seconds(), true)
			s.lastEventPass, s.eventPassAt = t, math.Inf(1)
		case ended > 0 || t >= s.eventPassAt:
			e.mainPass(s, t, c.QueueDepth)
			s.lastEventPass, s.eventPassAt = t, math.Inf(1)
		}
		if t >= s.nextBF {
			if s.bfChanged && len(e.pending) > 0 {
				e.backfill(s, t)
			}
			s.nextBF = nextMultiple(t, c.BFInterval.Seconds(), true)
		}
		e.sample(t)
		if e.cfg.Progress != nil {
			e.cfg.Progress(e.done, len(e.jobs)-e.res.Dropped)
		}
	}
	return nil
}

// nextSlurmEvent is the next instant at which anything can change; false
// when nothing is left to happen.
func (e *engine) nextSlurmEvent(s *slurmState, t float64) (float64, bool) {
	c := s.conf
	soon := math.Inf(1)
	if e.next < len(e.jobs) {
		soon = e.jobs[e.next].tj.Submit
	}
	for _, i := range e.running {
		j := &e.jobs[i]
		soon = min(soon, j.endAt(), j.killAt, j.requeueAt)
	}
	soon = min(soon, e.bbNext())
	busy := len(e.pending)+len(e.running) > 0
	if len(e.pending) > 0 {
		// Timers that fired while nothing waited restart from now.
		s.nextPeriodic = max(s.nextPeriodic, nextMultiple(t, c.SchedInterval.Seconds(), false))
		s.nextBF = max(s.nextBF, nextMultiple(t, c.BFInterval.Seconds(), false))
		s.nextPrio = max(s.nextPrio, nextMultiple(t, c.PriorityCalcPeriod.Seconds(), false))
		soon = min(soon, s.eventPassAt, s.nextPeriodic, s.nextPrio)
		if s.bfChanged {
			soon = min(soon, s.nextBF)
		}
	}
	if e.policy != nil && busy {
		s.nextStrata = max(s.nextStrata, nextMultiple(t, e.cfg.Interval.Seconds(), false))
		soon = min(soon, s.nextStrata)
	}
	return soon, !math.IsInf(soon, 1)
}

// stalled reports jobs waiting on an idle cluster with nothing left to
// arrive for longer than Config.StallLimit.
func (e *engine) stalled(t float64) bool {
	if len(e.running) > 0 || e.next < len(e.jobs) || len(e.pending) == 0 {
		e.idleSince = -1
		return false
	}
	if e.idleSince < 0 {
		e.idleSince = t
	}
	return t-e.idleSince > e.cfg.StallLimit.Seconds()
}

// nextMultiple is the first multiple of p at or after t (strictly after
// when after is set).
func nextMultiple(t, p float64, after bool) float64 {
	k := math.Ceil(t/p - 1e-9)
	if after && k*p <= t+1e-9 {
		k++
	}
	return k * p
}

// requestPass asks for an event-triggered main pass (after a submission or
// an update), at most every BatchSchedDelay.
func (s *slurmState) requestPass(t float64) {
	if math.IsInf(s.eventPassAt, 1) {
		s.eventPassAt = max(t, s.lastEventPass+s.conf.BatchSchedDelay.Seconds())
	}
}

// advanceSlurm moves running jobs to t: signalled jobs whose checkpoint
// is saved requeue themselves, jobs that reach their time limit before
// their work is done are killed then and resubmitted by their users
// (resubmit.go), jobs whose work is done by t end. It returns how many
// ended, requeued or were killed (each frees resources and triggers a
// main pass).
func (e *engine) advanceSlurm(s *slurmState, t float64) int {
	requeued := e.requeueDue(s, t)
	var killed []int
	for _, i := range e.running {
		if j := &e.jobs[i]; j.killAt <= t && j.killAt < j.endAt() {
			killed = append(killed, i)
		}
	}
	for _, i := range killed {
		e.resubmit(s, i)
	}
	before := e.done
	e.advance(t)
	return e.done - before + requeued + len(killed)
}
