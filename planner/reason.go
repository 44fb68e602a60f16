package planner

import "slices"

// Reason codes. Every Decision carries at least one; `strata explain` shows
// Describe() to users. Codes are stable: add new ones, never rename.
const (
	// ReasonAdmitted: the job may start now with the decided allocation.
	ReasonAdmitted Reason = "admitted"
	// ReasonWaitResources: not enough free GPU, CPU or memory now.
	ReasonWaitResources Reason = "wait_resources"
	// ReasonWaitOrder: capacity would exist, but a higher-ranked job that
	// does not fit yet comes first (policies without backfill).
	ReasonWaitOrder Reason = "wait_order"
	// ReasonNoHint: the comment has no strata: segment; the GPU count is
	// kept and only the priority may change.
	ReasonNoHint Reason = "no_hint"
	// ReasonHintInvalid: the strata: segment does not parse; the job is
	// left untouched.
	ReasonHintInvalid Reason = "hint_invalid"
	// ReasonRewriteOptOut: the user wrote rewrite=no; the job is left
	// untouched.
	ReasonRewriteOptOut Reason = "rewrite_opt_out"
	// ReasonFixedGPUs: the hint has no gpus=MIN-MAX range, so the GPU
	// count stays as requested; only the priority may change.
	ReasonFixedGPUs Reason = "fixed_gpus"
	// ReasonNoShapeFits: no set of usable nodes of the partition can hold
	// any allowed GPUsPerNode×NodeCount shape (even when idle).
	ReasonNoShapeFits Reason = "no_shape_fits"
	// ReasonBurstBufferFull: the job's burst-buffer bytes do not fit the
	// pool's free capacity now.
	ReasonBurstBufferFull Reason = "burst_buffer_full"
	// ReasonBurstBufferStaging: the job's burst-buffer data is not in yet
	// (its stage-in runs, or is still to start); Slurm does not start it
	// before, and the plan starts it no earlier than the stage-in can end.
	ReasonBurstBufferStaging Reason = "burst_buffer_staging"
	// ReasonRunning: a running job; Strata never changes running jobs in
	// production.
	ReasonRunning Reason = "running"
	// ReasonBehindOverdue: the job's planned start is when a running job
	// that has run past its predicted end reaches its time limit (Detail
	// names it): the plan expects such a job there, as Slurm's backfill
	// does (docs/planner.md, "Running jobs past their prediction").
	ReasonBehindOverdue Reason = "behind_overdue"
	// ReasonModelUnknown: the model= name is not in the catalog (or its
	// batch size has no measured curve); the duration comes from the
	// predictor or the time limit.
	ReasonModelUnknown Reason = "model_unknown"
	// ReasonGPUUnknown: the job's GPU type is neither built in
	// (catalog_gpus.go) nor in [planner] gpu-speed; the duration comes from
	// the predictor or the time limit.
	ReasonGPUUnknown Reason = "gpu_type_unknown"
	// ReasonPredicted: no training description; the duration comes from
	// the history predictor.
	ReasonPredicted Reason = "duration_predicted"
	// ReasonTimeLimit: no training description and no prediction; the
	// duration is the job's time limit.
	ReasonTimeLimit Reason = "duration_time_limit"
	// ReasonDurationDefault: no description, prediction or time limit; a
	// default duration (Options.DefaultDuration) was assumed.
	ReasonDurationDefault Reason = "duration_default"
	// ReasonMemoryInfeasible: the per-worker host memory (mem=) does not fit
	// on any node of the partition for any allowed shape, or the estimated
	// GPU memory of one worker exceeds its GPU's (Options.GPUMemoryMB).
	ReasonMemoryInfeasible Reason = "memory_infeasible"
	// ReasonAllocationChanged: the planner chose a GPU count (or PS count)
	// different from the request, within the user's range.
	ReasonAllocationChanged Reason = "allocation_changed"
	// ReasonAged: the job waited longer than the starvation limit and was
	// promoted ahead of the normal order.
	ReasonAged Reason = "aged"
	// ReasonPreempted: a running job is stopped to make room. On Slurm
	// only a preemptible job (Preemptible: preempt=yes and requeueable):
	// Strata sends its checkpoint signal and it requeues itself; in the
	// simulator's ideal mode Tiresias preempts any job.
	ReasonPreempted Reason = "preempted"
	// ReasonResized: a running job's allocation changes in place (Optimus
	// and smd-elastic, in the simulator's ideal mode only).
	ReasonResized Reason = "resized"
	// ReasonResizedRestart: a preemptible running job is stopped so that it
	// restarts at another GPU count within its range (the decision's
	// Workers and shape): Strata signals it, it checkpoints and requeues
	// itself, and its request is rewritten while it is pending.
	ReasonResizedRestart Reason = "resized_restart"
	// ReasonNoGPUs: the job requests no GPUs; Strata leaves it to Slurm.
	ReasonNoGPUs Reason = "no_gpus"
	// ReasonPartitionUnknown: the job's partition is not in the snapshot.
	ReasonPartitionUnknown Reason = "partition_unknown"
	// ReasonDeadlineRisk: the predicted completion is after the deadline=.
	ReasonDeadlineRisk Reason = "deadline_risk"
	// ReasonModelled: the duration comes from the catalog time model.
	ReasonModelled Reason = "duration_modelled"
	// ReasonOracle: the duration used for ordering is the oracle's (sjf).
	ReasonOracle Reason = "oracle_duration"
	// ReasonDeferred: the plan starts the job later than Slurm could (it
	// fits now, or room may free up before the plan's start);
	// Decision.NotBefore (written as its begin time) keeps Slurm from
	// starting it before then.
	ReasonDeferred Reason = "deferred"
	// ReasonBeginTime: Slurm does not consider the job yet (its begin time
	// has not come, or it waits on a dependency); it is sized and ranked
	// for when it may start, never started or deferred before.
	ReasonBeginTime Reason = "begin_time"
	// ReasonCapped: a site limit cut the hint's weight or GPU range
	// (Decision.Detail says which).
	ReasonCapped Reason = "capped"
	// ReasonUnreadable: part of the job's Slurm record could not be read
	// (Job.Unreadable); the job is left untouched.
	ReasonUnreadable Reason = "job_unreadable"
	// ReasonSiteUnread: the job's weight needs the site's policy (its own
	// priority is not known) and that could not be read this cycle
	// (Job.SiteUnread); the job is left untouched.
	ReasonSiteUnread Reason = "site_policy_unread"
	// ReasonArrayJob: a pending job array (or one of its tasks); left to
	// Slurm, since one write would change every remaining task.
	ReasonArrayJob Reason = "array_job"
	// ReasonHetJob: a component of a heterogeneous job; left to Slurm.
	ReasonHetJob Reason = "het_job"
	// ReasonSizeLocked: the job's GPU request was changed the most times
	// the site allows (--max-rewrites-per-job); its size is kept.
	ReasonSizeLocked Reason = "size_locked"
	// ReasonSizeKeptDistrusted: the user's claims are distrusted
	// (ReasonClaimDistrusted), so the job keeps the GPU count it asked for:
	// a claim timed by the time limit at every size cannot choose one.
	ReasonSizeKeptDistrusted Reason = "size_kept_distrusted"
	// ReasonNonCooperative: the job still runs the run Strata sent its
	// checkpoint signal past the requeue timeout; it is marked and never
	// signalled again (ActionMarkNonCooperative).
	ReasonNonCooperative Reason = "non_cooperative"
	// ReasonPartitionChosen: the job lists several partitions and the plan
	// puts it in the one where it is predicted to cost least (toptier.go).
	ReasonPartitionChosen Reason = "partition_chosen"
	// ReasonCalibrated: the plan used what finished jobs measured
	// (Snapshot.Calibration): the modelled run time corrected by the speed
	// factor of the job's model and GPU type, and/or the GPU type's
	// measured power in the energy term (Decision.Detail gives the numbers).
	ReasonCalibrated Reason = "calibrated"
	// ReasonPredictionCorrected: the job's predicted run time was
	// corrected by its user's own record of predicted against real run
	// times (Job.Claim, planner/trust; Decision.Detail gives the numbers).
	ReasonPredictionCorrected Reason = "prediction_corrected"
	// ReasonClaimDistrusted: the user's record shows claims far below what
	// their jobs ran (or a claim broken at the time limit): the job is timed
	// by its time limit, not by its hint.
	ReasonClaimDistrusted Reason = "claim_distrusted"
	// ReasonDeadlinePast: the hint's deadline= was already past when the job
	// was submitted; the planner ignores it (no urgency can be bought with a
	// date in the past). A deadline that passes while the job waits counts.
	ReasonDeadlinePast Reason = "deadline_past"
	// ReasonClaimBound: the job's time limit is lowered to a margin over
	// its hint-timed prediction (Decision.TimeLimit; the site binds
	// claims): a claim that was wrong ends at the limit.
	ReasonClaimBound Reason = "claim_bound"
)

// Reasons a guard gives for holding back or trimming a write (package
// decide names them as its guards; the codes are stored in the audit
// trail's guard column).
const (
	ReasonCycleLimit   Reason = "cycle_limit"
	ReasonHystPriority Reason = "hysteresis_priority"
	ReasonHystGPUs     Reason = "hysteresis_gpus"
	ReasonNotPending   Reason = "not_pending"
	ReasonJobHeld      Reason = "held_job"
	// Guards of preemptions.
	ReasonNotRunning       Reason = "not_running"
	ReasonNotPreemptible   Reason = "not_preemptible"
	ReasonAlreadySignalled Reason = "already_signalled"
	ReasonMinRun           Reason = "min_run_before_preempt"
	ReasonPreemptCap       Reason = "preempt_cap"
	ReasonDisturbCap       Reason = "disturbed_gpu_hours"
	// Per-job write caps.
	ReasonWriteCap      Reason = "write_cap"
	ReasonWritesFailing Reason = "writes_failing"
)

// guardText holds the sentence of each guard's reason (Describe).
var guardText = map[Reason]string{
	ReasonCycleLimit:   "the per-cycle rewrite limit (--max-rewrites-per-cycle) was reached; higher-ranked jobs went first",
	ReasonHystPriority: "the priority change was below the hysteresis threshold (--priority-hysteresis), so the priority was left alone",
	ReasonHystGPUs:     "the GPU change was below the threshold (--min-gpu-change), so the GPU request was left alone",
	ReasonNotPending:   "the job is not pending; Strata never changes running jobs",
	ReasonJobHeld:      "the job is held (scontrol hold, sbatch -H, a requeue limit): a new priority would fail or release it, so Strata leaves it alone",
	ReasonNotRunning:   "the job is no longer running, so there is nothing to preempt",
	ReasonNotPreemptible: "the job is not preemptible (its hint has no preempt=yes, Slurm does not allow it to be requeued, or it once did not requeue after its signal), " +
		"so Strata never signals it",
	ReasonAlreadySignalled: "the job was already sent its checkpoint signal; Strata waits for it to requeue itself",
	ReasonMinRun:           "the job has run less than the minimum time before a preemption (--min-run-before-preempt) since it last started",
	ReasonPreemptCap:       "the job was already preempted the maximum number of times in the last 24 hours (--max-preempt-per-day)",
	ReasonWriteCap: "Strata already wrote to this job the maximum number of times (--max-writes-per-job, counted in the audit trail and in the job's " +
		"admin comment, n=): it writes to it no more",
	ReasonWritesFailing: "Strata's writes to this job failed the maximum number of times (--max-failed-writes: slurmrestd refused them, " +
		"or the job read back unchanged): it writes to it no more; check slurmrestd and the job",
	ReasonDisturbCap: "this cycle's preemptions already reached the cap on running GPU-hours disturbed per cycle (--max-disturbed-gpu-hours); " +
		"jobs ranked first went first",
}

// reasonText holds the user-facing sentence of every reason code.
var reasonText = map[Reason]string{
	ReasonPredictionCorrected: "the predicted run time was corrected by how your own finished jobs compared with their predictions (the detail gives the factor)",
	ReasonClaimDistrusted:     "your recent jobs ran far longer than their hints claimed, so this job is timed by its time limit, not by its hint",
	ReasonDeadlinePast:        "the hint's deadline was already past when the job was submitted, so it is ignored",
	ReasonClaimBound:          "the job ranks by what its hint claims, far below its time limit, so Strata lowered the time limit to a margin over the prediction (the detail gives both): a job that runs far past its claim ends at the new limit",
	ReasonAdmitted:            "the job can start now with the planned GPUs",
	ReasonWaitResources:       "not enough free GPUs, CPUs, memory or burst buffer right now; the job waits for running jobs to finish",
	ReasonWaitOrder:           "jobs ranked ahead of this one must start first",
	ReasonNoHint:              "no strata: hint in --comment, so the GPU count is kept and only the priority may change",
	ReasonHintInvalid:         "the strata: hint is invalid, so the job is left unchanged (run `strata hint check` to see why)",
	ReasonRewriteOptOut:       "the hint says rewrite=no, so the job is left unchanged",
	ReasonFixedGPUs:           "no gpus=MIN-MAX range in the hint, so the GPU count is kept and only the priority may change",
	ReasonNoShapeFits:         "no set of usable nodes in the partition can hold the requested GPUs, even when idle",
	ReasonBurstBufferFull:     "the burst-buffer pool has not enough free capacity for the job's data; Slurm gives it space as soon as enough frees (ranked with the starts when nothing else holds it back)",
	ReasonRunning:             "the job is running; Strata never changes running jobs",
	ReasonBehindOverdue:       "the planned start is when a running job that has run past its predicted end reaches its time limit (the detail names it): the plan expects such a job there, as Slurm's backfill does, so the start may come much sooner if it ends earlier",
	ReasonModelUnknown:        "the model/batch in the hint is not in the catalog, so the duration comes from history or the time limit",
	ReasonGPUUnknown:          "the job's GPU type is neither built in nor in the site's [planner] gpu-speed, so the duration comes from history or the time limit",
	ReasonPredicted:           "the duration is predicted from history: similar jobs, the user's mean, or the job's time limit × the user's usual share of it, whichever has predicted this site's jobs best",
	ReasonTimeLimit:           "the duration is taken from the job's time limit",
	ReasonDurationDefault:     "the job has no hint, history or time limit, so a default duration is assumed",
	ReasonMemoryInfeasible:    "one worker needs more host memory (mem=) or GPU memory than the partition's nodes have",
	ReasonAllocationChanged:   "the planner chose a different GPU (or parameter-server) count within the user's range",
	ReasonAged:                "the job waited longer than the starvation limit and was moved ahead",
	ReasonPreempted:           "the running job is stopped to make room for other jobs: it was sent its checkpoint signal (it opted in with preempt=yes), requeues itself and restarts later",
	ReasonResized:             "the running job's GPU count changes in place (simulation only)",
	ReasonResizedRestart:      "the running job is stopped to restart at another GPU count within its range: it was sent its checkpoint signal (preempt=yes), requeues itself, and restarts at the new size",
	ReasonPartitionUnknown:    "the job's partition is not known to the planner",
	ReasonNoGPUs:              "the job requests no GPUs, so Strata leaves it to Slurm",
	ReasonDeadlineRisk:        "the predicted completion is later than the deadline in the hint",
	ReasonModelled:            "the duration comes from the model catalog and the job's hint",
	ReasonOracle:              "the order uses the true job duration (oracle; simulation only)",
	ReasonArrayJob:            "the job is a job array (or one of its tasks): one write would change every remaining task, so Strata leaves it to Slurm",
	ReasonCalibrated:          "the run time or energy estimate uses factors measured on finished jobs of the same model and GPU type (the detail gives them)",
	ReasonSizeLocked:          "the job's GPU request was already changed the most times allowed (--max-rewrites-per-job), so its size is kept; only its priority may change",
	ReasonSizeKeptDistrusted:  "your recent jobs ran far longer than their hints claimed, so this job keeps the GPU count you asked for; only its priority may change",
	ReasonNonCooperative:      "the job kept running after Strata sent it its checkpoint signal (preempt=yes): it is marked non-cooperative and never signalled again",
	ReasonHetJob:              "the job is a heterogeneous job component, which Strata leaves to Slurm",
	ReasonUnreadable:          "part of the job's Slurm record could not be read (the detail says what), so Strata leaves the job untouched",
	ReasonSiteUnread:          "Strata weighs this job by the site's fairshare, QOS and partition priority, which could not be read from Slurm this cycle (the detail says why), so it leaves the job untouched rather than rank it without the site's policy",
	ReasonCapped:              "a site limit cut the weight or GPU range the hint asks for (the detail says which)",
	ReasonBeginTime:           "Slurm does not consider the job yet (its begin time has not come, or it waits on a dependency); Strata sizes and ranks it for when it may start",
	ReasonPartitionChosen:     "the job lists several partitions; the plan puts it in the one where it is predicted to finish soonest at the least cost (the detail gives the numbers); Strata writes that partition when the job is to start (or is held for it) and otherwise leaves the job all its partitions",
	ReasonDeferred:            "the plan starts the job later than Slurm could (jobs ranked ahead of it go first); Strata sets its begin time so that Slurm waits too",

	// Burst-buffer stage-in (bbplan.go).
	ReasonBurstBufferStaging: "the job's data must be staged into the burst buffer first (its size over the pool's bandwidth); Slurm starts the job only after that, and the plan counts the time",
}

// Describe returns the reason in words for users (`strata explain`).
// Unknown codes are returned as they are.
func (r Reason) Describe() string {
	if t, ok := reasonText[r]; ok {
		return t
	}
	if t, ok := guardText[r]; ok {
		return t
	}
	return string(r)
}

// Reasons lists every reason code, sorted.
func Reasons() []Reason {
	out := make([]Reason, 0, len(reasonText))
	for r := range reasonText {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// sizeReasons explains why the GPU count is what it is.
// Jobs the planner must not change get their keep reason instead.
func sizeReasons(ji *jobInfo, w int) []Reason {
	if r, ok := sizeReason(ji, w); ok {
		return []Reason{r}
	}
	return nil
}

// sizeReason is the one reason sizeReasons gives (false: none).
func sizeReason(ji *jobInfo, w int) (Reason, bool) {
	switch {
	case ji.hintErr != nil:
		return ReasonHintInvalid, true
	case ji.keep:
		return ReasonRewriteOptOut, true
	case !ji.hasHint:
		return ReasonNoHint, true
	case ji.job.Claim.Distrust:
		return ReasonSizeKeptDistrusted, true
	case ji.job.SizeLocked:
		return ReasonSizeLocked, true
	case ji.fixed:
		return ReasonFixedGPUs, true
	case w != ji.req:
		return ReasonAllocationChanged, true
	}
	return "", false
}

// reasonsAround is head, the job's sizeReasons on w GPUs and tail, in
// one slice (SMD's starts and waits build one per job and cycle).
func reasonsAround(head Reason, ji *jobInfo, w int, tail Reason) []Reason {
	if r, ok := sizeReason(ji, w); ok {
		return []Reason{head, r, tail}
	}
	return []Reason{head, tail}
}
