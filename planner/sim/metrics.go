package sim

import (
	"math"
	"slices"
	"time"
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
	// Predictor names the duration source all policies saw ("oracle").
	Predictor string `json:"predictor"`
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
	PlanCalls  int `json:"plan_calls"`
	// Slurm mode: Writes counts job updates Strata wrote (after the
	// guards); TimeLimitKills jobs Slurm killed at their time limit, work
	// unfinished (left out of Jobs and the JCT statistics, like unfinished
	// jobs).
	Writes         int `json:"writes,omitempty"`
	TimeLimitKills int `json:"time_limit_kills,omitempty"`

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

	startGPUs int
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
	r.Outcomes = e.outcomes()
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
		if j.killed {
			continue
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
	r.EnergyKWh = round(energyKWh(e.cfg.Power.For(e.cl.spec.GPUType), r.GPUs, span, e.busy), 3)
	r.AvgStartGPUs = round(float64(r.startGPUs)/n, 3)
	r.Series = append(e.series, Point{T: last, Busy: 0, Pending: 0})
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
