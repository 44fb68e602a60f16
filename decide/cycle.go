package decide

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// History is what the guards and the planner need from Strata's own past
// writes (the audit trail in the daemon, the simulator's counters in
// simulation): per job, how often its GPU request was already changed
// (Resizes, the per-job cap) and how often it was preempted in the last 24
// hours (Preempts, the daily cap). Missing entries count as 0; nil maps are
// empty.
type History struct {
	Resizes  map[int64]int
	Preempts map[int64]int
	// Writes counts every write to each job so far (applied or failed,
	// not signals) and Failed the failed ones, from the audit trail (the
	// simulator: its own counters); nil: none.
	Writes map[int64]int
	Failed map[int64]int
	// Claims are the corrections of each user's predictions by their own
	// record (planner/trust), by user name; nil: none.
	Claims map[string]planner.Claim
	// Comments, when set, keeps each job's admin comment as the guards
	// parsed it from one cycle to the next (a caller that decides every
	// cycle passes the same one); nil: parsed every cycle. The verdicts
	// are the same either way.
	Comments *Comments
}

// Result is one decision round: the plan of the annotated snapshot and the
// guards' verdicts, aligned with Plan.Decisions. Jobs indexes the
// snapshot's jobs by ID.
type Result struct {
	Plan     planner.Plan
	Verdicts []Verdict
	Jobs     map[int64]*planner.Job
}

// Send lists the decisions to hand to the writer (the verdicts that pass),
// in plan order.
func (r Result) Send() []planner.Decision {
	var out []planner.Decision
	for _, v := range r.Verdicts {
		if v.Write {
			out = append(out, v.Send)
		}
	}
	return out
}

// Decide is Strata's cycle without its I/O, as both `strata run` and the
// simulator's Slurm mode run it: annotate the snapshot with history (a job
// whose GPU request reached the per-job cap keeps its size, pending or
// running — a running job's restart size is a rewrite too; running jobs
// carry their preemptions of the last day), plan with pol, and guard the
// plan with o. s is modified in place (the annotations). It is pure apart
// from what pol does: same snapshot, history and options, same result.
func Decide(ctx context.Context, pol planner.Policy, s *planner.Snapshot, h History, o Options) (Result, error) {
	return DecideIn(ctx, pol, s, h, o, nil)
}

// Buffers are a caller's buffers that DecideIn builds a Result's Jobs and
// Verdicts in, lent from one call to the next (the simulator decides
// every cycle, and keeps neither past its cycle, nor changes them). The
// zero value is ready.
type Buffers struct {
	jobs     map[int64]*planner.Job
	verdicts []Verdict
	// ids and first are what jobs indexes: a snapshot's job IDs in order
	// and the address of its first job (a caller that reuses its
	// snapshot's buffer has the same jobs at the same addresses).
	ids   []int64
	first *planner.Job
}

// index makes b.jobs the index of s's jobs, unless it is already.
func (b *Buffers) index(s *planner.Snapshot) {
	if b.jobs != nil && b.indexes(s) {
		return
	}
	if b.jobs == nil {
		b.jobs = make(map[int64]*planner.Job, len(s.Jobs))
	}
	clear(b.jobs)
	indexJobs(b.jobs, s)
	b.ids, b.first = b.ids[:0], nil
	for i := range s.Jobs {
		b.ids = append(b.ids, s.Jobs[i].ID)
	}
	if len(s.Jobs) > 0 {
		b.first = &s.Jobs[0]
	}
}

// indexes reports whether b.jobs indexes s's jobs: the same IDs in the
// same order at the same addresses.
func (b *Buffers) indexes(s *planner.Snapshot) bool {
	if len(s.Jobs) != len(b.ids) || len(s.Jobs) > 0 && &s.Jobs[0] != b.first {
		return false
	}
	for i := range s.Jobs {
		if s.Jobs[i].ID != b.ids[i] {
			return false
		}
	}
	return true
}

// DecideIn is Decide building the Result's Jobs and Verdicts in b's
// buffers (nil: new ones): they hold only until the next call with the
// same b. The result is Decide's.
func DecideIn(ctx context.Context, pol planner.Policy, s *planner.Snapshot, h History, o Options, b *Buffers) (Result, error) {
	Annotate(s, h, o)
	p, err := pol.Plan(ctx, s)
	if err != nil {
		return Result{}, fmt.Errorf("plan: %w", err)
	}
	markNonCooperative(&p, NonCooperative(s, o.RequeueTimeout))
	if b == nil {
		jobs := JobIndex(s)
		return Result{Plan: p, Jobs: jobs, Verdicts: PlanWith(p, jobs, h, s.Now, o)}, nil
	}
	b.index(s)
	clear(b.verdicts) // drop the last cycle's references
	b.verdicts = planWith(b.verdicts[:0], p, b.jobs, h, s.Now, o)
	return Result{Plan: p, Jobs: b.jobs, Verdicts: b.verdicts}, nil
}

// markNonCooperative turns the plan's decision for each marked job into
// the mark (a running job that ignored its signal is kept otherwise), or
// adds the mark for a job the plan does not list.
func markNonCooperative(p *planner.Plan, marks []planner.Decision) {
	for _, m := range marks {
		i := slices.IndexFunc(p.Decisions, func(d planner.Decision) bool { return d.JobID == m.JobID })
		if i < 0 {
			p.Decisions = append(p.Decisions, m)
			continue
		}
		d := &p.Decisions[i]
		d.Action = m.Action
		d.Reasons = append(d.Reasons, m.Reasons...)
		d.Detail = joinDetail(d.Detail, m.Detail)
	}
}

// joinDetail appends sentence b to detail a.
func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Annotate marks, on the snapshot's jobs, what the planner must respect
// from history: SizeLocked for every pending or running job whose GPU
// request was changed MaxPerJob times (the guards would refuse another
// change), and PreemptsToday for running jobs (the planner proposes no
// preemption past the daily cap and spends the last one only on a large
// gain), and every job its user's Claim (how far the user's predictions
// are corrected).
func Annotate(s *planner.Snapshot, h History, o Options) {
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if c, ok := h.Claims[j.User]; ok && j.User != "" {
			j.Claim = c
			// A distrusted claim is timed by the time limit at every size,
			// so it cannot choose a size: the job keeps its request.
			j.SizeLocked = j.SizeLocked || c.Distrust
		}
		switch j.State {
		case planner.JobPending:
			j.SizeLocked = j.SizeLocked || h.Resizes[j.ID] >= o.MaxPerJob
		case planner.JobRunning:
			j.SizeLocked = j.SizeLocked || h.Resizes[j.ID] >= o.MaxPerJob
			j.PreemptsToday = h.Preempts[j.ID]
		}
	}
}

// JobIndex indexes the snapshot's jobs by ID (pointers into s.Jobs).
func JobIndex(s *planner.Snapshot) map[int64]*planner.Job {
	m := make(map[int64]*planner.Job, len(s.Jobs))
	indexJobs(m, s)
	return m
}

// indexJobs adds the snapshot's jobs to m by ID.
func indexJobs(m map[int64]*planner.Job, s *planner.Snapshot) {
	for i := range s.Jobs {
		m[s.Jobs[i].ID] = &s.Jobs[i]
	}
}

// PlannerOptions returns po with the planner's preemption limits set from
// the write limits o, so that the plan proposes only what the guards let
// through. It is the one translation between the two: the guards' zero
// means "none" (no minimum run, no preemption), the planner's zero means
// "default", so zeros are mapped to the planner's "none" (-1).
func PlannerOptions(po planner.Options, o Options) planner.Options {
	po.MinRunBeforePreempt = o.MinRunBeforePreempt
	po.MaxPreemptPerDay = o.MaxPreemptPerDay
	po.MaxDisturbedGPUHours = o.MaxDisturbedGPUHours
	if o.MinRunBeforePreempt == 0 {
		po.MinRunBeforePreempt = -1 // no minimum
	}
	if o.MaxPreemptPerDay == 0 || o.MaxDisturbedGPUHours == 0 {
		po.MaxPreemptPerDay = -1 // no preemption at all
	}
	return po
}

// PreemptSince is the start of the window History.Preempts counts over for
// a snapshot taken at now (planner.PreemptWindow).
func PreemptSince(now time.Time) time.Time { return now.Add(-planner.PreemptWindow) }
