// Package decide decides which of a plan's decisions Strata may write to
// Slurm, and names what became of each: one vocabulary of write outcomes
// and guard reasons shared by the slurm writer, the audit trail in
// Postgres, the daemon and the simulator. It also holds the codec of the
// "strata:" segment Strata writes into a job's admin comment. It is pure
// (no I/O, no clock: the caller passes the snapshot's time) and imports
// only the planner.
package decide

import "github.com/strata-hpc/strata/planner"

// Outcome is what became of one decision. The strings are stored in the
// audit trail: add values, never rename them.
type Outcome string

// Outcomes of a write (slurm.Client.Apply).
const (
	// Applied: the update was written and read back.
	Applied Outcome = "applied"
	// DryRun: the update was computed (its body kept) but not sent.
	DryRun Outcome = "dry-run"
	// Unchanged: the job already matches the decision; nothing to send.
	Unchanged Outcome = "unchanged"
	// SkippedNotPending: the job is no longer pending (running, ended).
	SkippedNotPending Outcome = "skipped-not-pending"
	// SkippedGone: slurmctld no longer knows the job.
	SkippedGone Outcome = "skipped-gone"
	// SkippedHeld: the job is held now (priority 0 or a held reason): a
	// priority would fail (error 2042) or release it.
	SkippedHeld Outcome = "skipped-held"
	// SkippedOptOut: the job's hint says rewrite=no now, or no longer
	// parses.
	SkippedOptOut Outcome = "skipped-opt-out"
	// Refused: Strata will not write this (a GPU shape no node set can
	// hold, a job array or heterogeneous job).
	Refused Outcome = "refused"
	// Failed: slurmrestd rejected the write, or the read-back differs.
	Failed Outcome = "failed"
	// Signalled: a running job that opted in was sent its checkpoint
	// signal; it saves, requeues itself and waits to be restarted.
	Signalled Outcome = "signalled"
	// SkippedNotRunning: a preemption found the job no longer running.
	SkippedNotRunning Outcome = "skipped-not-running"
)

// Outcomes decided before any write.
const (
	// Kept: the planner's action was keep; nothing to write.
	Kept Outcome = "kept"
	// Held: a guard (limit, cap, hysteresis, opt-out, hold) held the write
	// back; the verdict's Guard says which.
	Held Outcome = "held"
	// NotSent: the cycle ended (shutdown, lost lock) before the decision
	// was written.
	NotSent Outcome = "not-sent"
)

// Outcomes lists every outcome (metrics pre-registration).
func Outcomes() []Outcome {
	return []Outcome{Applied, DryRun, Unchanged, SkippedNotPending, SkippedGone, SkippedHeld, SkippedOptOut,
		Refused, Failed, Signalled, SkippedNotRunning, Kept, Held, NotSent}
}

// Wrote reports outcomes of an attempted write (worth an audit row every
// time): written, failed or refused.
func (o Outcome) Wrote() bool { return o == Applied || o == Failed || o == Refused || o == Signalled }

// InEffect reports outcomes after which the job shows the decision (a
// signalled job is still on its way out: not yet).
func (o Outcome) InEffect() bool { return o == Applied || o == Unchanged }

// Name names the guard that held or trimmed a write ("" when none). It is
// a planner.Reason: one typed vocabulary of why a job was or was not
// changed runs from the planner through the guards to explain and the
// metrics, and Describe is the one text of each code (planner/reason.go).
type Name = planner.Reason

// Guards.
const (
	CycleLimit   = planner.ReasonCycleLimit
	JobCap       = planner.ReasonSizeLocked // one rule, one word: the planner keeps the size for the same cap
	HystPriority = planner.ReasonHystPriority
	HystGPUs     = planner.ReasonHystGPUs
	OptOut       = planner.ReasonRewriteOptOut // the same code the planner gives a job it leaves alone
	NotPending   = planner.ReasonNotPending
	JobHeld      = planner.ReasonJobHeld
	// Guards of preempt decisions (a running job sent its checkpoint
	// signal so that it requeues itself).
	NotRunning       = planner.ReasonNotRunning
	NotPreemptible   = planner.ReasonNotPreemptible
	AlreadySignalled = planner.ReasonAlreadySignalled
	MinRun           = planner.ReasonMinRun
	PreemptCap       = planner.ReasonPreemptCap
	DisturbCap       = planner.ReasonDisturbCap
	// Per-job write caps (every write, and failed writes).
	WriteCap      = planner.ReasonWriteCap
	WritesFailing = planner.ReasonWritesFailing
)

// GuardOf is the guard that names the same fact as a writer's skipped
// outcome (SkippedHeld is JobHeld, …; "" for the others): the writer found
// on re-reading the job what the guard checks in the snapshot.
func GuardOf(o Outcome) Name {
	switch o {
	case SkippedHeld:
		return JobHeld
	case SkippedNotPending:
		return NotPending
	case SkippedOptOut:
		return OptOut
	case SkippedNotRunning:
		return NotRunning
	}
	return ""
}

// Names lists every guard.
func Names() []Name {
	return []Name{CycleLimit, JobCap, HystPriority, HystGPUs, OptOut, NotPending, JobHeld,
		NotRunning, NotPreemptible, AlreadySignalled, MinRun, PreemptCap, DisturbCap, WriteCap, WritesFailing}
}
