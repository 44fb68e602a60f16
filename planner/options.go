package planner

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Predictor estimates how long a job runs. Production uses history
// (QSSF-style) with a time-limit fallback; the simulator may pass an oracle
// (labelled as such) or a noisy estimator. Implementations must be pure and
// deterministic.
type Predictor interface {
	// Predict returns the expected run time of job j on gpus GPUs, and
	// false when it has no estimate.
	Predict(j *Job, gpus int) (time.Duration, bool)
}

// PredictionBasis is implemented by a Predictor that can say what its
// answer for a job rests on; the decision's detail then says it beside
// ReasonPredicted.
type PredictionBasis interface {
	Basis(j *Job) string
}

// PredictorFunc adapts a function to Predictor.
type PredictorFunc func(j *Job, gpus int) (time.Duration, bool)

// Predict implements Predictor.
func (f PredictorFunc) Predict(j *Job, gpus int) (time.Duration, bool) { return f(j, gpus) }

// StablePredictor is a Predictor whose answer for a job depends on the
// job's ID and the GPUs asked only, never on when it is asked or on the
// job's other fields (the simulator's oracle of true durations). The
// policies keep durations from it across Plan calls in their memo, as
// they keep the time model's (a job whose request changes is timed
// again); other predictors are asked at every call.
type StablePredictor interface {
	Predictor
	// Stable reports that the answers are stable (false: ask every call).
	Stable() bool
}

// stablePredictor reports whether p's answers may be kept across calls:
// none (the time model alone) or a StablePredictor that says so.
func stablePredictor(p Predictor) bool {
	if p == nil {
		return true
	}
	sp, ok := p.(StablePredictor)
	return ok && sp.Stable()
}

// Options configure every policy. The zero value is usable: defaults are
// documented per field and filled by withDefaults.
type Options struct {
	// Predictor estimates durations of jobs without a model hint (and of
	// any job when the policy needs the oracle). nil = time-limit fallback.
	// With Run set it is called from several goroutines at once.
	Predictor Predictor
	// GPUSpeed maps a GPU type (Slurm GRES type, lower case) to a speed
	// factor against the reference GPU of the catalog profiles (1.0).
	// Unknown types use 1.0.
	GPUSpeed map[string]float64
	// EnergyWeight (λ_E, weighted JCT-seconds per kWh) and TardinessWeight
	// (λ_T, per second late and unit of the job's weight=) scale the energy
	// and deadline terms of SMD's and andreas' objectives: a job of weight
	// ω that ends s seconds after its deadline= costs λ_T·ω·s. 0 by default
	// (andreas then counts tardiness at λ_T = 1).
	EnergyWeight    float64
	TardinessWeight float64
	// AndreasIterations is MaxIt of the andreas policy's randomized greedy:
	// the deterministic greedy plus AndreasIterations−1 randomized ones per
	// island and cycle. Default DefaultAndreasIterations.
	AndreasIterations int
	// Interval is the plan cycle length, used for the cost of waiting a
	// cycle. Default 60 s.
	Interval time.Duration
	// PriorityBase and PriorityStep map start ranks to Slurm priorities:
	// rank r gets PriorityBase + (N-r)·PriorityStep. Defaults 100000, 10.
	PriorityBase int64
	PriorityStep int64
	// PriorityMode says how the start order enters Slurm (prioritymode.go):
	// PriorityNice ("nice", the site's default: SiteDefaults) writes each
	// ranked job's nice within ±NiceBand, so that Slurm's multifactor
	// priority (age, fairshare, QOS, partition, size) keeps counting;
	// PriorityAbsolute ("absolute", the zero Options' mode) writes
	// PriorityBase + (N-r)·PriorityStep, which fixes the job's priority.
	// NiceBand 0 = DefaultNiceBand; NiceBandNone (any negative) = a band
	// of 0: Strata writes no order at all.
	PriorityMode PriorityMode
	NiceBand     int64
	// SiteWeights weigh the parts of the site's policy read beside a job
	// (Job.Site: fairshare, QOS, partition) in its weight where the job's
	// own multifactor priority is not known (prioritymode.go). All zero:
	// equal weights.
	SiteWeights SiteWeights

	// Run, when set, calls plan(0) … plan(n-1) and returns when all have
	// returned; they plan groups of islands that share no node and no
	// burst-buffer pool, so the caller may run them concurrently (the
	// daemon does, one goroutine each: the planner starts none). Nil: one
	// after another. The plan is the same either way.
	Run func(n int, plan func(i int))

	// TopTier switches the top tier on (toptier.go): a job with a hint
	// that lists several partitions is planned in the one where it is
	// predicted to cost least, and moved there when it is to start. Off
	// (the default): planned in the first it lists, its partition never
	// written — on the measured workloads the top tier did not shorten
	// completion times (docs/evaluation.md § Partitions).
	TopTier bool

	// Catalog is the model catalog; nil = DefaultCatalog().
	Catalog *Catalog
	// PSComm selects the parameter-server communication model: "overlap"
	// (default; gradients of a layer are pushed while earlier layers still
	// run backward) or "no-overlap" (algorithms.md A1.1).
	PSComm PSComm
	// PSChoice, for jobs whose hint says ps=auto, replaces the planner's
	// choice of the server count by a fixed rule: "w" (as many servers as
	// workers) or "1" (one server); "" = the planner chooses (smd: among
	// 1, W/4, W/2 and W). A what-if of the simulator (strata simulate
	// --ps-choice; docs/evaluation.md § Parameter servers).
	PSChoice string
	// WorkerBandwidthBps and PSBandwidthBps are the NIC bandwidths (bytes/s)
	// of a worker and of a parameter server. Default 1.25e9 (10 Gb/s).
	WorkerBandwidthBps float64
	PSBandwidthBps     float64
	// IntraNodeBps and InterNodeBps are the ring all-reduce bandwidths
	// inside one node and across nodes. Defaults 50e9 and 12.5e9 (100 Gb/s).
	IntraNodeBps float64
	InterNodeBps float64
	// ReferenceFLOPS is the sustained training FLOP/s of the reference GPU
	// for params=/flops= hints. Default 10e12.
	ReferenceFLOPS float64
	// NodeGPUs is the GPUs per node assumed by EstimateDuration when no
	// snapshot is at hand (all-reduce inside vs across nodes). Default 8.
	NodeGPUs int
	// DefaultDuration is assumed for a job with no hint, no prediction and
	// no time limit. Default 1 h.
	DefaultDuration time.Duration
	// StarvationAge: a pending job that waited longer, and also longer
	// than StarvationStretch × its modelled run time (or longer than
	// StarvationMaxWait), is promoted ahead of the normal order (aging).
	// Defaults 24 h, 4 (negative: the age alone), 7 days. Earlier aging
	// (1 h and 8, 1 h and 4, 2 h and 4) protected users of wide jobs better
	// only while running jobs past their prediction were expected within
	// the interval; since they are expected at their time limits it no
	// longer does: measured in
	// docs/evaluation.d/accountability/33-site-policy-default-reading.md.
	StarvationAge     time.Duration
	StarvationStretch float64
	StarvationMaxWait time.Duration
	// EarlyStarvationStretch, when > 0, promotes in SMD one more job per
	// partition while none is aged: the longest-waiting job that waited at
	// least an hour and this many times its own modelled run, for wide
	// short jobs that narrow ones keep passing, without turning a
	// saturated queue first come, first served. Measured at 4 and 8 against
	// the default it gives more users above 1.10 × Slurm alone, not fewer
	// (docs/evaluation.md § The shipped default against the targets).
	// Default 0: off.
	EarlyStarvationStretch float64
	// MaxOptionsPerJob caps SMD's worker counts per job (each with up to
	// four PS counts). Default 12.
	MaxOptionsPerJob int
	// LongJob and LongJobShare bound how much of a partition SMD lets long
	// jobs hold, so that short jobs arriving later do not queue behind them
	// (SMD cannot preempt): jobs whose planned run time exceeds LongJob
	// (default 2 h) may together hold at most LongJobShare of the
	// partition's GPUs (default 0.25; ≥ 1 disables the bound).
	LongJob      time.Duration
	LongJobShare float64
	// GPUMemoryMB maps a GPU type (lower case) to its memory in MiB. When
	// set for a job's GPU type, SMD checks that one worker fits: 4 × the
	// fp32 parameters (weights, gradients, two optimizer states) plus the
	// stored activations at the job's batch (layered profiles). Unset = no
	// check.
	GPUMemoryMB map[string]int64
	// BurstBufferBps is the stage-in bandwidth per job (bytes/s) of the
	// burst-buffer pools whose snapshot gives none (BurstBufferPool's
	// BandwidthBps); 0 = unknown: stage-in takes no time in the plan.
	BurstBufferBps float64
	// BurstBufferPoolBps is the total bandwidth (bytes/s) of the pools
	// whose snapshot gives none (BurstBufferPool's TotalBandwidthBps),
	// shared by the stage-ins under way; 0 = no limit beyond the bandwidth
	// per job.
	BurstBufferPoolBps float64
	// Limits cap the weight and GPU range users may ask for in hints, per
	// partition and account (nil: no caps; DefaultLimits are the
	// configuration's defaults).
	Limits []Limit
	// KeepRequest: a pending job is never planned on fewer GPUs than it
	// asked for, whatever its gpus= range allows (the site default:
	// SiteDefaults; the configuration's shrink = true turns it off). A job
	// Strata shrinks runs longer than its user planned for, by the time
	// model's guess: measured with realistic knowledge (docs/evaluation.md
	// § Prediction error), shrinking gained 1–2 % of average JCT with a
	// model 3× off, lost 5 % with a good one, and ended honest jobs at their
	// own time limits where Slurm alone ended none. Off (the zero Options,
	// and the simulator's ideal mode): a job may be shrunk, with
	// ShrinkMargin under its limit.
	KeepRequest bool
	// Reshape says the caller can preempt and resize running jobs: the
	// simulator's ideal mode does, for the policies whose published
	// versions do (tiresias, optimus, smd-elastic). Otherwise (production:
	// Strata only writes to pending jobs) running jobs keep what they
	// hold, and no policy returns ActionPreempt or ActionResize.
	Reshape bool
	// TiresiasThreshold is the attained service (GPU-seconds) at which
	// tiresias moves a job from its first to its second queue. Default
	// TiresiasThreshold (one GPU-hour).
	TiresiasThreshold float64
	// GPUWatts is the mean power of a busy GPU for the energy term of SMD's
	// objective. Default 300 W.
	GPUWatts float64
	// RestartCost is what one restart (checkpoint, requeue, start-up)
	// costs a preemptible job whose hint gives no restart= and whose model
	// RestartCosts does not list. 0 = DefaultRestartCost (2 min).
	RestartCost time.Duration
	// RestartCosts is the per-model table of restart costs (catalog model
	// name → cost), for sites that measured them; nil = none.
	RestartCosts map[string]time.Duration
	// The writer's guards on preemptions (package decide), which the planner
	// mirrors so that it proposes only preemptions that can be written
	// (strata run sets both from the same settings): MinRunBeforePreempt,
	// the least run time since a job's last start (0 = 10 min; negative =
	// none); MaxPreemptPerDay, the most preemptions of one job in 24 hours
	// (0 = 2; negative = no preemption at all); MaxDisturbedGPUHours, the
	// most running GPU-hours (GPUs × hours since the last start) one
	// cycle's preemptions may disturb (0 = 64).
	MinRunBeforePreempt  time.Duration
	MaxPreemptPerDay     int
	MaxDisturbedGPUHours float64
	// BindClaims lowers the time limit of a pending job whose hint-timed
	// prediction is far below it (Decision.TimeLimit; bind.go): a claim
	// binds the claimant, so a lie ends at the limit. ClaimMargin is the
	// new limit over the prediction (0 = DefaultClaimMargin), ClaimFloor
	// the least limit ever written (0 = DefaultClaimFloor; at least
	// MinBoundLimit).
	BindClaims  bool
	ClaimMargin float64
	ClaimFloor  time.Duration
}

// PSComm names a parameter-server communication model.
type PSComm string

// Parameter-server communication models.
const (
	PSCommOverlap   PSComm = "overlap"
	PSCommNoOverlap PSComm = "no-overlap"
)

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = 60 * time.Second
	}
	if o.PriorityBase <= 0 {
		o.PriorityBase = 100000
	}
	if o.PriorityStep <= 0 {
		o.PriorityStep = 10
	}
	if o.PriorityMode == "" {
		o.PriorityMode = PriorityAbsolute
	}
	if o.NiceBand == 0 {
		o.NiceBand = DefaultNiceBand
	}
	if o.TiresiasThreshold <= 0 {
		o.TiresiasThreshold = TiresiasThreshold
	}
	if o.AndreasIterations <= 0 {
		o.AndreasIterations = DefaultAndreasIterations
	}
	if o.MinRunBeforePreempt == 0 {
		o.MinRunBeforePreempt = DefaultMinRunBeforePreempt
	}
	if o.MaxPreemptPerDay == 0 {
		o.MaxPreemptPerDay = DefaultMaxPreemptPerDay
	}
	if o.MaxDisturbedGPUHours == 0 {
		o.MaxDisturbedGPUHours = DefaultMaxDisturbedGPUHours
	}
	return o.modelDefaults()
}

// Validate reports the first invalid option, naming the field.
func (o Options) Validate() error {
	for _, t := range slices.Sorted(maps.Keys(o.GPUSpeed)) {
		if f := o.GPUSpeed[t]; f <= 0 {
			return fmt.Errorf("gpu speed factor for %q is %v: must be > 0", t, f)
		}
	}
	if o.ClaimMargin < 0 || o.ClaimMargin > 0 && o.ClaimMargin < 1 || o.ClaimMargin != o.ClaimMargin {
		return fmt.Errorf("claim margin %v: must be ≥ 1 (0: the default %v)", o.ClaimMargin, DefaultClaimMargin)
	}
	if o.ClaimFloor != 0 && o.ClaimFloor < MinBoundLimit {
		return fmt.Errorf("claim floor %v: must be at least %v", o.ClaimFloor, MinBoundLimit)
	}
	if o.EnergyWeight < 0 || o.TardinessWeight < 0 {
		return fmt.Errorf("energy and tardiness weights must be ≥ 0")
	}
	if o.PSComm != "" && o.PSComm != PSCommOverlap && o.PSComm != PSCommNoOverlap {
		return fmt.Errorf("ps communication model %q: want overlap or no-overlap", o.PSComm)
	}
	if o.PriorityMode != "" && o.PriorityMode != PriorityNice && o.PriorityMode != PriorityAbsolute {
		return fmt.Errorf("priority mode %q: want nice or absolute", o.PriorityMode)
	}
	if err := o.SiteWeights.validate(); err != nil {
		return err
	}
	if o.PSChoice != "" && o.PSChoice != "w" && o.PSChoice != "1" {
		return fmt.Errorf("ps choice %q: want w, 1 or empty (the planner chooses)", o.PSChoice)
	}
	for k, l := range o.Limits {
		if err := l.validate(k); err != nil {
			return err
		}
	}
	if o.RestartCost < 0 {
		return fmt.Errorf("restart cost %v: must be ≥ 0", o.RestartCost)
	}
	for _, m := range slices.Sorted(maps.Keys(o.RestartCosts)) {
		if d := o.RestartCosts[m]; d <= 0 {
			return fmt.Errorf("restart cost of model %q is %v: must be > 0", m, d)
		}
	}
	if o.TiresiasThreshold < 0 {
		return fmt.Errorf("tiresias threshold %v GPU-seconds: must be ≥ 0", o.TiresiasThreshold)
	}
	if o.LongJobShare < 0 || o.GPUWatts < 0 || o.AndreasIterations < 0 || o.LongJob < 0 || o.StarvationAge < 0 || o.EarlyStarvationStretch < 0 || o.MaxOptionsPerJob < 0 {
		return fmt.Errorf("long-job share, GPU watts, durations and option caps must be ≥ 0")
	}
	for _, v := range []float64{o.WorkerBandwidthBps, o.PSBandwidthBps, o.IntraNodeBps, o.InterNodeBps, o.ReferenceFLOPS, o.BurstBufferBps, o.BurstBufferPoolBps} {
		if v < 0 {
			return fmt.Errorf("bandwidths and reference FLOP/s must be ≥ 0, got %v", v)
		}
	}
	return nil
}
