package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// strataCycle is Strata's cycle in Slurm mode: a snapshot of the jobs as
// Slurm holds them, then the daemon's own decide.Decide (history
// annotations, the policy's plan, the guards: pending only, caps,
// hysteresis, opt-outs, begin-time limits), and the writes that pass, which
// stay on the jobs until changed. The plan's Start flags are not acted on:
// Slurm decides.
func (e *engine) strataCycle(ctx context.Context, s *slurmState, t float64) error {
	s.cycle++
	if !e.cfg.planIdle && e.nothingToWrite() {
		return nil
	}
	snap := e.snapshot(s.cycle, t, s)
	h := decide.History{Resizes: s.rewrites, Writes: s.writes, Preempts: e.preemptCounts(t), Claims: e.claims(t), Comments: &s.comments}
	buf := &s.decided
	if e.cfg.fromScratch {
		h.Comments, buf = nil, nil
	}
	dec, err := decide.DecideIn(ctx, timedPolicy{e.policy, &e.res}, snap, h, s.guard, buf)
	if err != nil {
		return fmt.Errorf("cycle at t=%.0fs: %w", t, err)
	}
	p, jobs := dec.Plan, dec.Jobs
	for _, d := range p.Decisions {
		switch {
		case d.Action == planner.ActionResize:
			e.res.HonestyViolations++ // Slurm cannot resize a running job
		case d.Action == planner.ActionPreempt && (jobs[d.JobID] == nil || !preemptible(jobs[d.JobID])):
			e.res.HonestyViolations++ // only jobs that opted in may be stopped
		}
	}
	wrote := false
	for _, v := range dec.Verdicts {
		if !v.Write {
			if v.Send.Action == planner.ActionPreempt {
				e.res.PreemptsHeld++
				if e.onHeld != nil {
					e.onHeld(v, t)
				}
			}
			continue
		}
		i := int(v.Send.JobID) - 1
		if v.Send.Action == planner.ActionMarkNonCooperative && i >= 0 && i < len(e.jobs) && e.jobs[i].phase == phaseRunning {
			e.markNonCooperative(i) // as the daemon's writer: noncoop=1, never signalled again
			s.writes[v.Send.JobID]++
			e.res.Writes++
			continue
		}
		if v.Send.Action == planner.ActionPreempt && i >= 0 && i < len(e.jobs) && e.jobs[i].phase == phaseRunning {
			e.signal(i, v.Send, t)
			e.res.Writes++
			continue
		}
		if i < 0 || i >= len(e.jobs) || e.jobs[i].phase != phasePending {
			e.res.UnknownJobs++
			continue
		}
		e.write(s, i, v.Send, s.cycle, t)
		s.writes[v.Send.JobID]++
		if v.Resizes() {
			s.rewrites[v.Send.JobID]++
		}
		e.res.Writes++
		wrote = true
	}
	if wrote {
		s.requestPass(t) // an update queues a main pass
		s.bfChanged = true
	}
	if e.afterWrites != nil {
		e.afterWrites(s, t, p)
	}
	return nil
}

// nothingToWrite reports a cycle that can write nothing whatever the plan:
// no pending job (the guards write only to pending jobs) and no running job
// that opted in to preemption (the only running jobs a plan may stop on
// Slurm, planner.Options.Reshape, and the only ones Strata ever signals,
// so none can be marked non-cooperative either). Such a cycle is not
// planned: its plan could change nothing (the policies keep no state
// between plans but their memos, which never change a plan; the cycle
// count, which seeds andreas, still advances), so the run's results are
// those of planning it (TestSkipIdleCycles); only Result.PlanCalls is
// smaller.
func (e *engine) nothingToWrite() bool {
	if len(e.pending) > 0 {
		return false
	}
	if e.optIns == 0 {
		return true
	}
	for _, i := range e.running {
		if j := &e.jobs[i]; !math.IsInf(j.requeueAt, 1) || checkpoints(&j.pj) {
			return false
		}
	}
	return true
}

// write applies one guarded decision to a pending job as slurmrestd would:
// the priority (it sticks), the GPU request (per node, or per job for jobs
// that asked per job; CPUs and memory follow the GPUs), the begin time
// (set, or released when Strata no longer defers the job), the admin
// comment; then the priority is recomputed.
func (e *engine) write(s *slurmState, i int, d planner.Decision, cycle int64, t float64) {
	j := &e.jobs[i]
	p := &j.pj
	if d.Priority > 0 {
		j.prio, j.prioSet, j.nice = d.Priority, true, 0
	}
	if d.Nice != nil {
		j.nice = *d.Nice
	}
	e.resize(j, d)
	e.bindLimit(j, d)
	if d.Partition != "" && (slices.Contains(p.Partitions, d.Partition) || d.Partition == strings.Join(p.Partitions, ",")) {
		p.Partition = d.Partition // one of those the job lists (the top tier's choice), or all of them again
	}
	switch {
	case !d.NotBefore.IsZero():
		j.begin = d.NotBefore.Sub(simEpoch).Seconds()
		j.strataBegin = j.begin
	case j.strataBegin > t:
		j.begin, j.strataBegin = t, 0 // released: a begin time in the past is now
	}
	p.AdminComment = decide.Written{Workers: d.Workers, PS: d.PS, Rank: d.Rank, Cycle: cycle, Defer: d.NotBefore, Parts: p.Partitions,
		Nice: j.nice, NiceSet: d.Nice != nil}.String()
	j.prio = e.priority(s, j, t)
}

// slurmPending sets *pj to a pending job's view in Slurm mode: its request as
// written, its Slurm priority, and the begin time Strata set while it is
// ahead.
func (e *engine) slurmPending(pj *planner.Job, s *slurmState, i int, t float64) {
	j := &e.jobs[i]
	*pj = j.pj
	pj.Priority, pj.Nice = j.prio, j.nice
	if !j.prioSet && j.prio > 1 {
		pj.SitePriority = j.prio + j.nice // the factors, without Strata's nice (slurm/ reads it so)
	}
	pj.Site = e.siteRead(j) // /shares and QOS, as slurm/ reads them beside the job
	pj.AttainedGPUSeconds, pj.Restarts = j.attained, j.restarts
	pj.SubmitTime = simTime(j.slurmSubmit) // Slurm resets it at a requeue
	if j.strataBegin > t {
		pj.DeferredUntil = simTime(j.strataBegin)
	}
	if j.requeueBegin > t { // the begin time of a requeue: Slurm's, not Strata's
		pj.BeginTime = simTime(j.requeueBegin)
	}
}

// slurmRunning adds to a running job's view what the Slurm adapter reads:
// its time limit, submit time (reset by a requeue), and what preemption
// needs (the running view already holds start, nodes and GPUs).
func (e *engine) slurmRunning(s *slurmState, v *planner.Job, i int, t float64) {
	v.TimeLimit = time.Duration(math.Round(e.jobs[i].limit * float64(time.Second)))
	v.SubmitTime = simTime(e.jobs[i].slurmSubmit)
	e.preemptView(s, v, i, t)
}

// timedPolicy times the policy's Plan calls into the run's result.
type timedPolicy struct {
	p   planner.Policy
	res *Result
}

func (tp timedPolicy) Plan(ctx context.Context, s *planner.Snapshot) (planner.Plan, error) {
	began := time.Now()
	p, err := tp.p.Plan(ctx, s)
	tp.res.PlanTime += time.Since(began)
	tp.res.PlanCalls++
	return p, err
}

// markNonCooperative records on running job i what the daemon's writer
// records in its admin comment (noncoop=1): it is never signalled again.
// The simulator's jobs requeue on their signal, so this is reached only
// when a requeue takes longer than the guards' requeue timeout.
func (e *engine) markNonCooperative(i int) {
	j := &e.jobs[i]
	w, _ := decide.ParseAdminComment(j.pj.AdminComment)
	w.NonCooperative = true
	j.pj.AdminComment = decide.MergeAdminComment(j.pj.AdminComment, w)
	j.pj.NonCooperative = true
}
