package sim

import (
	"math"
	"slices"
	"time"

	"github.com/strata-hpc/strata/planner/history"
)

// Result summarises one policy's run (algorithms.md B5 definitions):
// JCT = end − submit; queue = first start − submit; makespan = last end −
// first submit; gpu_util = busy GPU-seconds / (GPUs × makespan); energy =
// busy GPU-seconds at busy power + the rest of GPUs × makespan at idle
// power. Times are seconds, rounded to 0.1 s.
type Result struct {
	Policy string `json:"policy"`
	// Scheduler is who started the jobs: "slurm" (a slurmctld model, from
	// what the policy wrote) or "ideal" (the policy itself).
	Scheduler string `json:"scheduler"`
	// Jobs is the number of completed jobs the statistics cover.
	Jobs      int     `json:"jobs"`
	AvgJCT    float64 `json:"avg_jct_s"`
	P50JCT    float64 `json:"p50_jct_s"`
	P95JCT    float64 `json:"p95_jct_s"`
	P99JCT    float64 `json:"p99_jct_s"`
	AvgQueue  float64 `json:"avg_queue_s"`
	Makespan  float64 `json:"makespan_s"`
	GPUUtil   float64 `json:"gpu_util"`
	EnergyKWh float64 `json:"energy_kwh"`
	// Predictor names the duration source the policy saw: "oracle" (the
	// true durations) or "history" (learned online from completed jobs).
	Predictor string `json:"predictor"`
	// HistoryWays: with the history predictor, each way of timing an
	// unhinted job and its error on the run's finished jobs, the one that
	// answers (once scored enough) first (history.Estimator.Ways).
	HistoryWays []history.Way `json:"history_ways,omitempty"`
	// AvgStartGPUs is the mean GPU count jobs first started with;
	// ChangedAllocations counts jobs started with another count than asked.
	AvgStartGPUs       float64 `json:"avg_start_gpus"`
	ChangedAllocations int     `json:"changed_allocations"`
	Preemptions        int     `json:"preemptions"`
	Resizes            int     `json:"resizes"`
	// HonestyViolations counts preempt/resize decisions of a policy that
	// may only shape pending jobs (ignored by the simulator; a bug).
	HonestyViolations int `json:"honesty_violations"`
	// RejectedStarts/RejectedResizes count decisions whose shape did not fit
	// the free GPUs (a policy bug); UnknownJobs decisions for unknown IDs.
	RejectedStarts  int `json:"rejected_starts"`
	RejectedResizes int `json:"rejected_resizes"`
	UnknownJobs     int `json:"unknown_jobs,omitempty"`
	// LinearScaled counts starts on a GPU count without a scaling curve
	// (duration assumed to scale linearly).
	LinearScaled int `json:"linear_scaled"`
	// Dropped jobs ask for more GPUs than the cluster has; Unfinished jobs
	// were still waiting when the run stalled.
	Dropped    int `json:"dropped"`
	Unfinished int `json:"unfinished"`
	// PlanCalls counts the policy's plans. In Slurm mode a cycle that
	// can write nothing (no pending job, no running job opted in to
	// preemption) is not planned (nothingToWrite).
	PlanCalls int `json:"plan_calls"`
	// Slurm mode: Writes counts job updates Strata wrote (after the
	// guards); TimeLimitKills the times Slurm killed a job at its time
	// limit, work unfinished (its user resubmitted it: from its checkpoint
	// when it checkpoints, else from scratch; its JCT runs until its work
	// is done); LimitsLowered the time limits Strata lowered to bind a
	// claim (Decision.TimeLimit), and LoweredLimitKills the kills at a
	// limit Strata had lowered (of TimeLimitKills; never at the user's own).
	Writes            int `json:"writes,omitempty"`
	TimeLimitKills    int `json:"time_limit_kills,omitempty"`
	LimitsLowered     int `json:"limits_lowered,omitempty"`
	LoweredLimitKills int `json:"lowered_limit_kills,omitempty"`
	// Resubmits counts the killed jobs' resubmissions (each kill, in this
	// simulator's runs). Reports written before resubmission existed lack
	// it: their killed jobs never finished (Lost).
	Resubmits int `json:"resubmits,omitempty"`
	// Honesty splits the average JCT between honest and dishonest users
	// (nil when the trace marks no user dishonest).
	Honesty *HonestyStats `json:"honesty,omitempty"`
	// Claims are the users whose predictions their own record corrected at
	// the end of the run (Slurm mode; planner/trust).
	Claims *ClaimStats `json:"claims,omitempty"`
	// Restarts is how often jobs were restarted after a preemption or a
	// resize (in Slurm mode: requeued after their checkpoint signal);
	// RestartsPerJob that over the jobs the statistics cover, RestartedJobs
	// how many of them restarted at least once, MaxRestarts the most one
	// job restarted. LostGPUHours is the work lost to restarts: GPU time
	// held without progress while a job saved its checkpoint and while it
	// started up again.
	Restarts       int     `json:"restarts,omitempty"`
	RestartsPerJob float64 `json:"restarts_per_job,omitempty"`
	RestartedJobs  int     `json:"restarted_jobs,omitempty"`
	MaxRestarts    int     `json:"max_restarts,omitempty"`
	LostGPUHours   float64 `json:"lost_gpu_hours,omitempty"`
	// PreemptsHeld counts preempt decisions the daemon's guards held back
	// (Slurm mode; per cycle, so one job may count in several cycles).
	PreemptsHeld int `json:"preempts_held,omitempty"`

	// Cost are the terms of the objective (deadlines, tardiness, energy
	// cost), when the trace has deadlines or the run an energy price.
	Cost *CostTerms `json:"cost,omitempty"`
	// Calibration is what online calibration learned (Config.Calibrate;
	// nil without).
	Calibration *CalibrationStats `json:"calibration,omitempty"`

	// JobRows are the trace's jobs one by one, in submission order, when
	// Config.JobRows asked for them (strata simulate --json --jobs).
	JobRows []JobRow `json:"job_rows,omitempty"`
	// UserGPUSeconds is each user's GPU-seconds over the run, when the run
	// models fairshare (SlurmConfig.PriorityWeightFairshare > 0): what the
	// fairshare error compares with the users' equal shares.
	UserGPUSeconds map[string]float64 `json:"user_gpu_s,omitempty"`
	// AccountGPUSeconds is the same per account (SlurmConfig.Accounts;
	// every user its own account without): the fairshare error per account.
	AccountGPUSeconds map[string]float64 `json:"account_gpu_s,omitempty"`
	// QOSHighUsers are the users in QOS high and NeverHintUsers those none
	// of whose jobs carries a hint, when the run models the site's policy
	// (fairshare or QOS weights): the groups the per-user JCT is read by.
	QOSHighUsers   []string `json:"qos_high_users,omitempty"`
	NeverHintUsers []string `json:"never_hint_users,omitempty"`

	// BurstBuffer describes the pool in Slurm mode (nil without one).
	BurstBuffer *BBStats `json:"burst_buffer,omitempty"`

	// PlanTime is the wall time spent in Policy.Plan (not deterministic,
	// so not in the JSON).
	PlanTime time.Duration `json:"-"`
	// JCTs (sorted) and Series feed the plots.
	JCTs []float64 `json:"-"`
	// Outcomes are the per-job starts, ends and GPU counts (outcomes.go).
	Outcomes []JobOutcome `json:"-"`
	Series   []Point      `json:"-"`
	// GPUs is the cluster size, for utilization plots.
	GPUs int `json:"-"`

	startGPUs      int
	lostGPUSeconds float64
}

// JobRow is one trace job's run: its times in seconds from the start of
// the trace (rounded to 0.1 s; null when it never started or ended), the
// GPUs it asked for and first started with, and how often it restarted.
type JobRow struct {
	// ID is the trace's job_id.
	ID     string   `json:"id"`
	Submit float64  `json:"submit_s"`
	Start  *float64 `json:"start_s"` // first start
	End    *float64 `json:"end_s"`
	// JCT is end − submit (null when the job did not complete).
	JCT       *float64 `json:"jct_s"`
	GPUs      int      `json:"gpus"`       // asked for
	StartGPUs int      `json:"start_gpus"` // at the first start (0: never started)
	Restarts  int      `json:"restarts"`
	// State is done, unfinished (still waiting or running when the run
	// ended) or dropped (larger than the cluster). A job killed at its time
	// limit is resubmitted by its user and done when its work is.
	State string `json:"state"`
	// User is the job's user; Dishonest marks a user who understates the
	// work in every hint (strata simulate --dishonest); Resubmits counts
	// the times Slurm killed the job at its time limit and its user
	// submitted it again (Slurm mode).
	User      string `json:"user"`
	Dishonest bool   `json:"dishonest"`
	Resubmits int    `json:"resubmits,omitempty"`
}

// jobRows lists every trace job's run, in submission order.
func (e *engine) jobRows() []JobRow {
	at := func(v float64) *float64 { r := round(v, 1); return &r }
	rows := make([]JobRow, 0, len(e.jobs))
	for i := range e.jobs {
		j := &e.jobs[i]
		row := JobRow{ID: j.tj.ID, Submit: round(j.tj.Submit, 1), GPUs: j.tj.GPUs, StartGPUs: j.firstGPUs,
			Restarts: j.restarts, State: "unfinished", User: j.pj.User, Dishonest: j.tj.Dishonest, Resubmits: j.kills}
		if j.firstStart >= 0 && j.phase != phaseFuture && j.phase != phaseDropped {
			row.Start = at(j.firstStart)
		}
		switch {
		case j.phase == phaseDropped:
			row.State = "dropped"
		case j.phase == phaseDone:
			row.State, row.End, row.JCT = "done", at(j.end), at(j.end-j.tj.Submit)
		}
		rows = append(rows, row)
	}
	return rows
}

// Point is the cluster state from time T (s) until the next point.
type Point struct {
	T       float64
	Busy    int
	Pending int
}

func (e *engine) result() *Result {
	r := &e.res
	r.GPUs = e.cl.spec.TotalGPUs()
	if e.cfg.JobRows {
		r.JobRows = e.jobRows()
	}
	r.Outcomes = e.outcomes()
	r.UserGPUSeconds, r.AccountGPUSeconds = e.userGPUSeconds(), e.accountGPUSeconds()
	r.QOSHighUsers, r.NeverHintUsers = e.userGroups()
	r.Honesty, r.Claims = e.honesty(), e.claimStats()
	first, last := math.Inf(1), math.Inf(-1)
	var sumJCT, sumQ float64
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.phase == phaseDropped {
			continue
		}
		first = min(first, j.tj.Submit)
		if j.phase != phaseDone {
			continue
		}
		last = max(last, j.end)
		r.Restarts += j.restarts
		r.MaxRestarts = max(r.MaxRestarts, j.restarts)
		if j.restarts > 0 {
			r.RestartedJobs++
		}
		jct := j.end - j.tj.Submit
		r.JCTs = append(r.JCTs, jct)
		sumJCT += jct
		sumQ += j.firstStart - j.tj.Submit
	}
	r.Jobs = len(r.JCTs)
	if r.Jobs == 0 {
		return r
	}
	slices.Sort(r.JCTs)
	n := float64(r.Jobs)
	r.AvgJCT, r.AvgQueue = round(sumJCT/n, 1), round(sumQ/n, 1)
	r.P50JCT, r.P95JCT, r.P99JCT = percentile(r.JCTs, 0.50), percentile(r.JCTs, 0.95), percentile(r.JCTs, 0.99)
	span := last - first
	r.Makespan = round(span, 1)
	if span > 0 {
		r.GPUUtil = round(e.busy/(float64(r.GPUs)*span), 4)
	}
	kwh := e.energyKWh(r.GPUs, span)
	r.EnergyKWh = round(kwh, 3)
	r.Cost = e.costTerms(kwh)
	r.AvgStartGPUs = round(float64(r.startGPUs)/n, 3)
	r.RestartsPerJob = round(float64(r.Restarts)/n, 3)
	r.LostGPUHours = round(r.lostGPUSeconds/3600, 2)
	r.Series = append(e.series, Point{T: last, Busy: 0, Pending: 0})
	r.BurstBuffer = e.bbStats(first, last)
	return r
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return round(sorted[min(max(k, 0), len(sorted)-1)], 1)
}

func round(v float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}
