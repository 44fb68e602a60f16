package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// ANDREAS' experimental rule for deadlines and tardiness weights
// (algorithms.md A2): d = r + U(t_min, 3·t_min), ω = 2·U(0.0015, 0.0075)
// per second late.
const (
	deadlineLow, deadlineHigh = 1.0, 3.0
	tardinessLow, tardinessHi = 2 * 0.0015, 2 * 0.0075
	// MeanTardinessWeight is the mean tardiness weight of the rule (cost
	// per second late): a job's weight= hint is its tardiness weight over
	// this mean, so that policies see the weights the costs use.
	MeanTardinessWeight = (tardinessLow + tardinessHi) / 2
	// DefaultEnergyPrice is the price of a kWh when none is given.
	DefaultEnergyPrice = 0.20
)

// SynthDeadlines returns a copy of tr in which every job gets a deadline
// and a tardiness weight by ANDREAS' rule:
//
//   - deadline_s = submit + U(t_min, 3·t_min), where t_min is the job's
//     fastest run time (the truth's) over the GPU counts it may run on: the
//     gpus=1-MAX range its simulated user writes (HintRange) for a job
//     with a scaling curve, else its request;
//   - tardiness_weight = 2·U(0.0015, 0.0075), the cost of a second late.
//
// Draws are taken job by job in trace order from one PCG stream seeded by
// seed, so the result is a pure function of the trace, the truth, the
// range, the cluster size and the seed. The simulator writes both into the
// job's hint (deadline=, weight=), so every policy sees the same data.
func SynthDeadlines(tr *Trace, seed uint64, t Truth, r HintRange, clusterGPUs int) *Trace {
	out := &Trace{Skipped: tr.Skipped, CPUOnly: tr.CPUOnly, Jobs: make([]TraceJob, len(tr.Jobs))}
	rng := rand.New(rand.NewPCG(seed, 0x616e6472656173)) // "andreas"
	for i, j := range tr.Jobs {
		tmin := FastestRun(t, r, &j, clusterGPUs)
		j.Deadline = j.Submit + tmin*(deadlineLow+(deadlineHigh-deadlineLow)*rng.Float64())
		j.TardinessWeight = tardinessLow + (tardinessHi-tardinessLow)*rng.Float64()
		out.Jobs[i] = j
	}
	return out
}

// FastestRun is the job's least run time in seconds over the GPU counts
// its simulated user allows (see SynthDeadlines).
func FastestRun(t Truth, r HintRange, j *TraceJob, clusterGPUs int) float64 {
	best := j.Duration
	if r.comment(t, j, clusterGPUs) == "" {
		return best
	}
	for w := 1; w <= r.max(t, j, clusterGPUs); w++ {
		if d, _ := t.Duration(j, w); d > 0 {
			best = math.Min(best, d)
		}
	}
	return best
}

// deadlineHint adds the job's deadline and weight to its hint.
func deadlineHint(comment string, tj *TraceJob) string {
	if tj.Deadline <= 0 {
		return comment
	}
	if comment == "" {
		comment = "strata:"
	}
	return fmt.Sprintf("%s deadline=%s weight=%.6g", comment, simTime(tj.Deadline).Format(time.RFC3339Nano), jctWeight(tj))
}

// jctWeight is the job's weight= (1 without a tardiness weight).
func jctWeight(tj *TraceJob) float64 {
	if tj.TardinessWeight > 0 {
		return tj.TardinessWeight / MeanTardinessWeight
	}
	return 1
}

// CostTerms are a run's terms of the objective (algorithms.md B3/B4):
// Σ ω_i·JCT_i + λ_E·energy + Σ λ_T·ω_i·tardiness_i, each reported apart,
// and ANDREAS' cost (energy and tardiness in money). Unfinished jobs count
// as deadline misses, with no tardiness (their end is unknown); a job
// killed at its time limit ends when its resubmission does.
type CostTerms struct {
	// EnergyPrice is the price of a kWh; EnergyCost the run's energy
	// (Result.EnergyKWh: busy and idle GPUs over the makespan) at it.
	EnergyPrice float64 `json:"energy_price_per_kwh"`
	EnergyCost  float64 `json:"energy_cost"`
	// WeightedJCT is Σ ω_i·JCT_i over the completed jobs (ω_i: weight=).
	WeightedJCT float64 `json:"weighted_jct_s"`
	// DeadlineJobs have a deadline; Missed of them ended after it or never
	// completed; MissRate is Missed / DeadlineJobs.
	DeadlineJobs int     `json:"deadline_jobs"`
	Missed       int     `json:"deadline_missed"`
	MissRate     float64 `json:"deadline_miss_rate"`
	// Tardiness is Σ max(0, end − deadline) in seconds; TardinessCost
	// Σ tardiness_weight_i × tardiness_i.
	Tardiness     float64 `json:"tardiness_s"`
	TardinessCost float64 `json:"tardiness_cost"`
	// Cost is ANDREAS' cost: EnergyCost + TardinessCost.
	Cost float64 `json:"cost"`
	// Objective is the objective in the planner's units (weighted
	// JCT-seconds): WeightedJCT + Cost / MeanTardinessWeight, i.e. the
	// weights PolicyOptions gives (λ_T = 1, λ_E = price / mean weight).
	Objective float64 `json:"objective"`
}

// costTerms computes the run's cost terms (nil when the run has neither
// deadlines nor an energy price).
func (e *engine) costTerms(kwh float64) *CostTerms {
	price := e.cfg.EnergyPrice
	ct := &CostTerms{EnergyPrice: price}
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.phase == phaseDropped {
			continue
		}
		done := j.phase == phaseDone
		if done {
			ct.WeightedJCT += jctWeight(j.tj) * (j.end - j.tj.Submit)
		}
		if j.tj.Deadline <= 0 {
			continue
		}
		ct.DeadlineJobs++
		late := j.end - j.tj.Deadline
		switch {
		case !done:
			ct.Missed++
		case late > 0:
			ct.Missed++
			ct.Tardiness += late
			ct.TardinessCost += j.tj.TardinessWeight * late
		}
	}
	if ct.DeadlineJobs == 0 && price == 0 {
		return nil
	}
	if price == 0 {
		ct.EnergyPrice = DefaultEnergyPrice
	}
	ct.EnergyCost = kwh * ct.EnergyPrice
	ct.Cost = ct.EnergyCost + ct.TardinessCost
	ct.Objective = ct.WeightedJCT + ct.Cost/MeanTardinessWeight
	if ct.DeadlineJobs > 0 {
		ct.MissRate = round(float64(ct.Missed)/float64(ct.DeadlineJobs), 4)
	}
	ct.EnergyCost, ct.WeightedJCT, ct.Tardiness = round(ct.EnergyCost, 3), round(ct.WeightedJCT, 1), round(ct.Tardiness, 1)
	ct.TardinessCost, ct.Cost, ct.Objective = round(ct.TardinessCost, 3), round(ct.Cost, 3), round(ct.Objective, 1)
	return ct
}

// hasDeadlines reports whether any job of the trace has a deadline.
func hasDeadlines(tr *Trace) bool {
	for i := range tr.Jobs {
		if tr.Jobs[i].Deadline > 0 {
			return true
		}
	}
	return false
}
