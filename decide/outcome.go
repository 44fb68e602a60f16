// Package decide decides which of a plan's decisions Strata may write to
// Slurm, and names what became of each: one vocabulary of write outcomes
// and guard reasons shared by the slurm writer, the audit trail in
// Postgres, the daemon and the simulator. It also holds the codec of the
// "strata:" segment Strata writes into a job's admin comment. It is pure
// (no I/O, no clock: the caller passes the snapshot's time) and imports
// only the planner.
package decide

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

// Name names the guard that held or trimmed a write ("" when none).
type Name string

// Guards.
const (
	CycleLimit   Name = "cycle_limit"
	JobCap       Name = "job_cap"
	HystPriority Name = "hysteresis_priority"
	HystGPUs     Name = "hysteresis_gpus"
	OptOut       Name = "rewrite_opt_out"
	NotPending   Name = "not_pending"
	JobHeld      Name = "held_job"
	// Guards of preempt decisions (a running job sent its checkpoint
	// signal so that it requeues itself).
	NotRunning       Name = "not_running"
	NotPreemptible   Name = "not_preemptible"
	AlreadySignalled Name = "already_signalled"
	MinRun           Name = "min_run_before_preempt"
	PreemptCap       Name = "preempt_cap"
	DisturbCap       Name = "disturbed_gpu_hours"
)

var guardText = map[Name]string{
	CycleLimit:   "the per-cycle rewrite limit (--max-rewrites-per-cycle) was reached; higher-ranked jobs went first",
	JobCap:       "the job's GPU request was already changed the maximum number of times (--max-rewrites-per-job), so it keeps its size",
	HystPriority: "the priority change was below the hysteresis threshold (--priority-hysteresis), so the priority was left alone",
	HystGPUs:     "the GPU change was below the threshold (--min-gpu-change), so the GPU request was left alone",
	OptOut:       "the job's hint says rewrite=no",
	NotPending:   "the job is not pending; Strata never changes running jobs",
	JobHeld:      "the job is held (scontrol hold, sbatch -H, a requeue limit): a new priority would fail or release it, so Strata leaves it alone",
	NotRunning:   "the job is no longer running, so there is nothing to preempt",
	NotPreemptible: "the job is not preemptible (its hint has no preempt=yes, Slurm does not allow it to be requeued, or it once did not requeue after its signal), " +
		"so Strata never signals it",
	AlreadySignalled: "the job was already sent its checkpoint signal; Strata waits for it to requeue itself",
	MinRun:           "the job has run less than the minimum time before a preemption (--min-run-before-preempt) since it last started",
	PreemptCap:       "the job was already preempted the maximum number of times in the last 24 hours (--max-preempt-per-day)",
	DisturbCap: "this cycle's preemptions already reached the cap on running GPU-hours disturbed per cycle (--max-disturbed-gpu-hours); " +
		"jobs ranked first went first",
}

// Describe says in words why the guard held the write back (explain,
// logs); "" for no guard.
func (n Name) Describe() string { return guardText[n] }

// Names lists every guard.
func Names() []Name {
	return []Name{CycleLimit, JobCap, HystPriority, HystGPUs, OptOut, NotPending, JobHeld,
		NotRunning, NotPreemptible, AlreadySignalled, MinRun, PreemptCap, DisturbCap}
}
