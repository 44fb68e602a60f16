package sim

import (
	"math"
	"slices"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// Accountability in Slurm mode: a job killed at its time limit is not
// done, its user resubmits it; every finished run feeds its user's record
// (planner/trust) as the daemon's does from Postgres; and a time limit
// Strata lowers to bind a claim (Decision.TimeLimit) is what Slurm kills
// by.

// resubmit kills running job i at its time limit and has its user submit
// it again at once: a new Slurm job with the user's own request and
// comment, the limit the user asked for (twice it when the job was killed
// at the user's own limit: the user asks for more; the user's limit again
// when Strata had lowered it), pending from now with a fresh age. A job
// that checkpoints (preempt=yes and requeueable) resumes from its
// checkpoint, paying the restart start-up; any other job starts its work
// again from scratch, the run lost. Its JCT runs on until its work is done.
func (e *engine) resubmit(s *slurmState, i int) {
	j := &e.jobs[i]
	t := j.killAt
	dt := t - j.lastT
	e.account(j, dt)
	if p := min(dt, j.penalty); j.dur > 0 {
		j.remaining = max(0, j.remaining-(dt-p)/j.dur)
	}
	e.res.TimeLimitKills++
	e.res.Resubmits++
	if j.limit < j.userLimit { // a limit Strata lowered
		e.res.LoweredLimitKills++
	}
	if checkpoints(&j.pj) {
		j.penalty = e.cfg.RestartPenalty.Seconds()
	} else {
		e.res.lostGPUSeconds += float64(j.gpus) * j.ran
		j.remaining, j.penalty = 1, 0
	}
	if c := e.cfg.calib; c != nil {
		c.ended(j, t, true)
	}
	e.runEnded(i, t, true)
	e.cl.release(j.slots)
	e.bbRequeued(i, t)
	if j.limit >= j.userLimit { // killed at the user's own limit: asks for more
		j.userLimit *= 2
	}
	j.pj = e.requestView(int64(i+1), j.tj)
	j.limit = j.userLimit
	j.pj.TimeLimit = time.Duration(j.limit * float64(time.Second))
	j.slots, j.gpus, j.phase, j.view = nil, 0, phasePending, nil
	j.lastT, j.killAt, j.requeueAt = t, math.Inf(1), math.Inf(1)
	j.kills++
	j.slurmSubmit, j.begin, j.strataBegin, j.requeueBegin = t, t, 0, 0
	j.prioSet, j.attained, j.restartTo, j.preempts = false, 0, planner.Decision{}, nil
	j.nice = 0 // a new job
	delete(s.rewrites, int64(i+1))
	j.prio = e.priority(s, j, t)
	e.running = deleteIndex(e.running, i)
	e.pending = insertSorted(e.pending, i)
	s.requestPass(t)
}

// checkpoints reports a job that resumes from its checkpoint when
// resubmitted: it opted in to preemption (preempt=yes) and is requeueable,
// so it saves its work on the signal before its limit (docs/preemption.md).
func checkpoints(p *planner.Job) bool {
	h, ok, err := planner.ParseHints(p.Comment)
	return ok && err == nil && h.Preempt && p.Requeue
}

// trustState is the users' records of a Slurm-mode run with a policy:
// every run that ended, as the daemon stores them, and the claims fitted
// from them (refitted when a run ended since the last cycle).
type trustState struct {
	opts     planner.Options
	outcomes []trust.Outcome
	claims   map[string]planner.Claim
	stale    bool
	// overran are the running jobs that have run trust.MaxFactor × their
	// prediction (trust.Overran), by job index, at the last fit.
	overran []int
}

// predictRun records what the planner predicts for running job i at the
// size it started with, before its user's record corrects it: what its
// real run is compared with when it ends, and whether the prediction came
// from its hint (only those count in the user's record).
func (e *engine) predictRun(i int) {
	if e.trust == nil {
		return
	}
	j := &e.jobs[i]
	v := j.pj
	v.Claim = planner.Claim{}
	if d, r, err := planner.EstimateDuration(&v, max(1, j.gpus), 0, e.trust.opts); err == nil && d > 0 {
		// the daemon reads the same from the decision's reasons
		j.predicted, j.unclaimed = d.Seconds(), !trust.Claimed(r)
		if c := e.cfg.calib; c != nil { // calibrated, before the user's correction: as the daemon records it
			j.predicted *= c.factor(j)
		}
	}
}

// runEnded closes the current run of job i at end: into its user's record
// when the run had a prediction (timedOut: Slurm stopped it at its limit).
// Jobs of a trace without users (and without --users) share the
// placeholder user "user": they keep no record, which would be everyone's
// and correct every job by every other's (a record is one user's).
func (e *engine) runEnded(i int, end float64, timedOut bool) {
	j := &e.jobs[i]
	if tr := e.trust; tr != nil && j.predicted > 0 && j.ran > 0 && j.tj.User != "" {
		tr.outcomes = append(tr.outcomes, trust.Outcome{User: j.pj.User, Account: j.pj.Account, JobID: int64(i + 1),
			End: simTime(end), Predicted: time.Duration(j.predicted * float64(time.Second)),
			Real: time.Duration(j.ran * float64(time.Second)), TimedOut: timedOut, GPUs: j.gpus, NoClaim: j.unclaimed})
		tr.stale = true
	}
	j.ran, j.predicted = 0, 0
}

// runningOutcome is the record's outcome of running job i so far, at t
// (trust.Outcome.Running).
func (e *engine) runningOutcome(i int, t float64) trust.Outcome {
	j := &e.jobs[i]
	return trust.Outcome{User: j.pj.User, Account: j.pj.Account, JobID: int64(i + 1), End: simTime(t),
		Predicted: time.Duration(j.predicted * float64(time.Second)), Real: time.Duration(j.ran * float64(time.Second)),
		GPUs: j.gpus, NoClaim: j.unclaimed, Running: true}
}

// claims are the users' corrections for the cycle at t
// (decide.History.Claims): from the runs ended so far and the running
// jobs that have already overrun their claim (trust.Overran), as the
// daemon's.
func (e *engine) claims(t float64) map[string]planner.Claim {
	tr := e.trust
	if tr == nil {
		return nil
	}
	var over []int
	for _, i := range e.running {
		if j := &e.jobs[i]; j.predicted > 0 && j.ran > 0 && j.tj.User != "" && trust.Overran(e.runningOutcome(i, t)) {
			over = append(over, i)
		}
	}
	slices.Sort(over)
	if !slices.Equal(over, tr.overran) {
		tr.overran, tr.stale = over, true
	}
	if tr.stale {
		var unreliable map[string]bool
		outs := tr.outcomes
		if len(over) > 0 {
			outs = slices.Clip(outs)
			for _, i := range over {
				outs = append(outs, e.runningOutcome(i, t))
			}
		}
		_, tr.claims, unreliable = decide.Records(outs)
		tr.stale = false
		if c := e.cfg.calib; c != nil { // the shared calibration leaves them out, as the daemon's
			c.exclude, c.dirty = unreliable, true
		}
	}
	return tr.claims
}

// bindLimit applies a lowered time limit of a written decision to pending
// job j (Slurm kills by it).
func (e *engine) bindLimit(j *job, d planner.Decision) {
	if planner.LowersLimit(time.Duration(j.limit*float64(time.Second)), d.TimeLimit) {
		j.limit = d.TimeLimit.Seconds()
		j.pj.TimeLimit = d.TimeLimit
		e.res.LimitsLowered++
	}
}

// Lost is how many jobs the result's statistics leave out: unfinished,
// dropped, and killed at their limit without a resubmission (reports from
// before resubmissions).
func (x *Result) Lost() int {
	return x.Unfinished + x.Dropped + max(0, x.TimeLimitKills-x.Resubmits)
}

// HonestyStats compares honest and dishonest users' jobs (Result.Honesty):
// how many finished and their average JCT.
type HonestyStats struct {
	HonestJobs      int      `json:"honest_jobs"`
	HonestAvgJCT    float64  `json:"honest_avg_jct_s"`
	DishonestJobs   int      `json:"dishonest_jobs"`
	DishonestAvgJCT float64  `json:"dishonest_avg_jct_s"`
	DishonestUsers  []string `json:"dishonest_users"`
	// DishonestKills counts the dishonest users' jobs killed at their time
	// limit (each resubmitted).
	DishonestKills int `json:"dishonest_kills"`
}

// ClaimStats is what the users' records held at the end of a run
// (Result.Claims): users with a record, those whose predictions it
// corrected and those it distrusted, and the runs it was fitted from.
type ClaimStats struct {
	Users      int `json:"users"`
	Corrected  int `json:"corrected"`
	Distrusted int `json:"distrusted"`
	Runs       int `json:"runs"`
	TimedOut   int `json:"timed_out"`
}

// honesty computes Result.Honesty (nil when no job is dishonest).
func (e *engine) honesty() *HonestyStats {
	h := &HonestyStats{}
	var sumH, sumD float64
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.tj.Filler {
			continue
		}
		if !j.tj.Dishonest {
			if j.phase == phaseDone {
				h.HonestJobs++
				sumH += j.end - j.tj.Submit
			}
			continue
		}
		if !slices.Contains(h.DishonestUsers, j.pj.User) {
			h.DishonestUsers = append(h.DishonestUsers, j.pj.User)
		}
		h.DishonestKills += j.kills
		if j.phase == phaseDone {
			h.DishonestJobs++
			sumD += j.end - j.tj.Submit
		}
	}
	if len(h.DishonestUsers) == 0 {
		return nil
	}
	slices.Sort(h.DishonestUsers)
	if h.HonestJobs > 0 {
		h.HonestAvgJCT = round(sumH/float64(h.HonestJobs), 1)
	}
	if h.DishonestJobs > 0 {
		h.DishonestAvgJCT = round(sumD/float64(h.DishonestJobs), 1)
	}
	return h
}

// claimStats computes Result.Claims (nil without records: no policy, no
// users, or --no-trust).
func (e *engine) claimStats() *ClaimStats {
	tr := e.trust
	if tr == nil || len(tr.outcomes) == 0 {
		return nil
	}
	recs, _, _ := decide.Records(tr.outcomes)
	c := &ClaimStats{Users: len(recs), Runs: len(tr.outcomes)}
	for _, r := range recs {
		switch {
		case r.Claim.Distrust:
			c.Distrusted++
		case !r.Claim.IsZero():
			c.Corrected++
		}
	}
	for _, o := range tr.outcomes {
		if o.TimedOut {
			c.TimedOut++
		}
	}
	return c
}
