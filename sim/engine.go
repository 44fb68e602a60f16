package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/history"
)

// Config configures a simulation run. The zero value of every optional
// field is usable; defaults are documented per field.
type Config struct {
	Cluster ClusterSpec
	// Scheduler is SchedulerSlurm (the default: a slurmctld model starts
	// jobs from what Strata wrote) or SchedulerIdeal (Strata starts jobs
	// itself).
	Scheduler string
	// Slurm configures the slurmctld model (Slurm mode).
	Slurm SlurmConfig
	// Guard are the write limits of Strata's cycle in Slurm mode (nil: the
	// daemon's defaults, decide.Defaults).
	Guard *decide.Options
	// Interval is the scheduling interval (plan cycle); default 60 s.
	Interval time.Duration
	// RestartPenalty is the time a preempted or resized job spends
	// restarting (checkpoint restore, start-up) before it progresses again;
	// default 30 s, the re-scale delay of the Pollux artifact's simulator.
	RestartPenalty time.Duration
	// Preemptible opts every trace job in to preemption: preempt=yes in its
	// hint (a hint with only that for jobs that had none) and Slurm's
	// requeue flag (strata simulate --preemptible). Policies may then stop
	// them (in Slurm mode through the daemon's guards: signal, checkpoint,
	// requeue, restart; SlurmConfig.RequeueDelay) and restart them at
	// another size within their range.
	Preemptible bool
	// HideBurstBuffer hides the burst-buffer pool from the policies (their
	// snapshots have none) while the simulated Slurm still enforces it: the
	// burst-buffer-unaware what-if (strata simulate --hide-burst-buffer).
	HideBurstBuffer bool
	// CheckpointDelay is how long a signalled job keeps its GPUs, making no
	// progress, while it saves its checkpoint before it requeues itself
	// (Slurm mode); default 60 s.
	CheckpointDelay time.Duration
	Truth           Truth
	Range           HintRange
	Power           PowerModel
	// EnergyPrice is the price of a kWh for the cost terms (Result.Cost);
	// 0 = DefaultEnergyPrice when the trace has deadlines, else no cost
	// terms.
	EnergyPrice float64
	// TiresiasThreshold, when > 0, sets the queue threshold (attained
	// GPU-seconds) of the tiresias policy; 0 keeps the policy's default.
	// The Pollux artifact's Tiresias uses 16 GPU-hours (57,600).
	TiresiasThreshold float64
	// Predictor is what policies time jobs by: PredictorOracle (the true
	// durations, the default) or PredictorHistory (Helios' estimator,
	// learning online from the jobs that completed earlier in the run, as
	// the daemon does from Postgres).
	Predictor string
	// learn is the run's history estimator (PredictorHistory).
	learn *history.Estimator
	// HistoryPrior are runs that ended before the trace starts, which the
	// history estimator knows from the start (a site's accounting before
	// the period simulated, as the daemon reads it); nil: it learns from
	// the run's own jobs only.
	HistoryPrior []history.Record
	// Calibrate gives the policies' snapshots the calibration fitted
	// online from the modelled jobs finished so far in the run
	// (planner/calib, as `strata run` fits it from Postgres); the result
	// reports its factors and the time model's error (Result.Calibration).
	Calibrate bool
	calib     *calibState
	// NoTrust leaves out the users' records in Slurm mode (a what-if: what
	// a lie buys when nothing checks claims). By default Strata's cycle
	// gets, as the daemon does, each user's record fitted from the runs
	// that ended so far (planner/trust; decide.History.Claims).
	NoTrust bool
	// popts are the policy's planner options (RunNamed), for the
	// predictions the records compare real runs with.
	popts *planner.Options
	// Planner, when set, are the site's planner settings (the [planner]
	// section of the configuration file) every policy starts from; the run
	// still sets the oracle predictor, the interval, the node size and a
	// Tiresias threshold given by TiresiasThreshold.
	Planner *planner.Options
	// SkipUnchanged asks policies that only shape pending jobs for a plan
	// only when the cluster changed since their last plan (an arrival, a
	// completion or a start), not at every tick with free GPUs and pending
	// jobs. An unchanged snapshot differs only in Now, so fifo and sjf plan
	// the same when aging is off (TestSkipUnchanged), but with aging (the
	// policies promote jobs that waited long, Options.StarvationAge) a plan
	// may change as time passes: this is a speed option for large traces,
	// off by default.
	SkipUnchanged bool
	// StallLimit is how long pending jobs may wait on an idle cluster
	// (nothing running, nothing arriving, the policy starts nothing) before
	// the run gives up and reports them unfinished; policies with aging may
	// start such jobs later. Default 7 days.
	StallLimit time.Duration
	// JobRows adds one row per trace job to the result (Result.JobRows:
	// strata simulate --json --jobs); off, the result is unchanged.
	JobRows bool
	// planIdle (tests) plans every Strata cycle in Slurm mode, even one
	// that can write nothing (nothingToWrite): the from-scratch reference
	// the skipping is compared with.
	planIdle bool
	// fromScratch (tests) decides every Strata cycle in Slurm mode from
	// scratch: no decide.Buffers, no admin comments kept parsed (the
	// reference the kept caches are compared with; the policy's memo is
	// the policy's).
	fromScratch bool
	// Progress, when set, is called once per simulated tick with the number
	// of finished and total jobs. It must not affect the run.
	Progress func(done, total int)
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = 60 * time.Second
	}
	if c.StallLimit <= 0 {
		c.StallLimit = 7 * 24 * time.Hour
	}
	if c.RestartPenalty <= 0 {
		c.RestartPenalty = 30 * time.Second
	}
	if c.CheckpointDelay <= 0 {
		c.CheckpointDelay = 60 * time.Second
	}
	if c.Scheduler == "" {
		c.Scheduler = SchedulerSlurm
	}
	if c.Slurm == (SlurmConfig{}) {
		c.Slurm = DefaultSlurmConfig()
	}
	c.Slurm = c.Slurm.withDefaults()
	c.Cluster = c.Cluster.withDefaults()
	return c
}

// PolicyOptions returns the planner options every policy of a run gets:
// the oracle Predictor (true durations; results are labelled "oracle"), the
// run's interval, the cluster's node size (so that all policies see the
// same predictions), the run's Tiresias threshold, the busy power of the
// cluster's GPU type, and, when the trace has deadlines or the run an
// energy price and the site set neither weight, the weights of the
// objective CostTerms reports (λ_T = 1, λ_E = price / MeanTardinessWeight).
func PolicyOptions(cfg Config, tr *Trace) planner.Options {
	cfg = cfg.withDefaults()
	o := planner.SiteDefaults() // no site settings: the daemon's defaults
	if cfg.Planner != nil {
		o = *cfg.Planner
	}
	o.Predictor, o.Interval, o.NodeGPUs = oracle(cfg.Truth, tr.Jobs), cfg.Interval, cfg.Cluster.GPUsPerNode
	if cfg.TiresiasThreshold > 0 || cfg.Planner == nil {
		o.TiresiasThreshold = cfg.TiresiasThreshold
	}
	if o.GPUWatts == 0 { // the energy terms use the run's power model
		o.GPUWatts = cfg.Power.For(cfg.Cluster.GPUType).BusyW
	}
	if price := cfg.EnergyPrice; (price > 0 || hasDeadlines(tr)) && o.EnergyWeight == 0 && o.TardinessWeight == 0 {
		if price == 0 {
			price = DefaultEnergyPrice
		}
		// The objective CostTerms reports, in weighted JCT-seconds.
		o.EnergyWeight, o.TardinessWeight = price/MeanTardinessWeight, 1
	}
	if cfg.Preemptible && o.RestartCost == 0 {
		o.RestartCost = cfg.restartCost()
	}
	if cfg.Scheduler == SchedulerSlurm { // the planner mirrors the guards it writes through
		o = decide.PlannerOptions(o, cfg.guardOptions())
	}
	return o
}

// restartCost is what one restart costs a job in this run, as the policies
// are told (like the durations, the truth): in Slurm mode the checkpoint,
// Slurm's requeue delay and the start-up; in the ideal mode the start-up.
func (c Config) restartCost() time.Duration {
	if c.Scheduler == SchedulerSlurm {
		return c.CheckpointDelay + c.Slurm.RequeueDelay + c.RestartPenalty
	}
	return c.RestartPenalty
}

// mayReshape lists the policies whose published versions preempt or
// re-allocate running jobs; only these (and "*-elastic" what-ifs) may do
// so in simulation. Every other policy is held to production honesty.
var mayReshape = map[string]bool{"tiresias": true, "optimus": true}

// MayReshape reports whether the named policy may preempt or resize
// running jobs in simulation.
func MayReshape(policy string) bool {
	return mayReshape[policy] || strings.HasSuffix(policy, "-elastic")
}

// RunNamed builds the named policy with PolicyOptions and runs it; the
// policies that may reshape running jobs (MayReshape) are told they may.
func RunNamed(ctx context.Context, cfg Config, tr *Trace, name string) (*Result, error) {
	cfg = cfg.withDefaults()
	if name == PolicySlurm {
		if cfg.Scheduler != SchedulerSlurm {
			return nil, fmt.Errorf("simulate %s: policy slurm (Slurm alone) needs the Slurm scheduler", name)
		}
		return Run(ctx, cfg, tr, name, nil)
	}
	o := PolicyOptions(cfg, tr)
	o.Reshape = MayReshape(name) && cfg.Scheduler == SchedulerIdeal
	switch cfg.Predictor {
	case "", PredictorOracle:
	case PredictorHistory:
		cfg.learn = history.New()
		for _, r := range cfg.HistoryPrior {
			cfg.learn.Add(r)
		}
		o.Predictor = cfg.learn.Predictor()
	default:
		return nil, fmt.Errorf("simulate: predictor %q: want %s or %s", cfg.Predictor, PredictorOracle, PredictorHistory)
	}
	if cfg.Calibrate {
		cfg.calib = newCalibState(o, cfg.Cluster.GPUType)
	}
	cfg.popts = &o
	p, err := planner.NewPolicy(name, o)
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", name, err)
	}
	return Run(ctx, cfg, tr, name, p)
}

// Predictors of a run (Config.Predictor).
const (
	PredictorOracle  = "oracle"
	PredictorHistory = "history"
)

// PolicySlurm is Slurm alone: no plan, nothing written (Slurm mode only).
const PolicySlurm = "slurm"

// Run simulates one policy over the trace. Jobs larger than the cluster
// (or its burst-buffer pool) can never run; they are dropped before the run
// and counted in Result.Dropped. When jobs wait on an idle cluster with
// nothing left to arrive and the policy starts none of them for
// Config.StallLimit, the run stops, counting them in Result.Unfinished.
func Run(ctx context.Context, cfg Config, tr *Trace, name string, p planner.Policy) (*Result, error) {
	cfg = cfg.withDefaults()
	e := newEngine(cfg, tr, name, p)
	if cfg.Scheduler == SchedulerSlurm && p != nil && !cfg.NoTrust && cfg.popts != nil {
		e.trust = &trustState{opts: *cfg.popts}
	}
	run := e.loop
	switch cfg.Scheduler {
	case SchedulerSlurm:
		run = e.slurmLoop
	case SchedulerIdeal:
		if p == nil {
			return nil, fmt.Errorf("simulate %s: the ideal scheduler needs a policy", name)
		}
	default:
		return nil, fmt.Errorf("simulate: scheduler %q: want %s or %s", cfg.Scheduler, SchedulerSlurm, SchedulerIdeal)
	}
	if err := run(ctx); err != nil {
		return nil, fmt.Errorf("simulate %s: %w", name, err)
	}
	r := e.result()
	r.Scheduler = cfg.Scheduler
	if cfg.Predictor == PredictorHistory {
		r.Predictor = PredictorHistory
		if cfg.learn != nil { // Slurm alone plans nothing and learns nothing
			r.HistoryWays = cfg.learn.Ways()
		}
	}
	if cfg.calib != nil {
		r.Calibration = cfg.calib.stats()
	}
	return r, nil
}

// loop advances tick by tick until every job finished or the run stalls.
func (e *engine) loop(ctx context.Context) error {
	iv := e.cfg.Interval.Seconds()
	for k := int64(0); e.done+e.res.Dropped < len(e.jobs); {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := float64(k) * iv
		e.advance(t)
		e.arrive(t)
		started := 0
		if e.needPlan() {
			n, err := e.plan(ctx, k, t)
			if err != nil {
				return err
			}
			started = n
			e.changed = n > 0
		}
		e.sample(t)
		if e.cfg.Progress != nil {
			e.cfg.Progress(e.done, len(e.jobs)-e.res.Dropped)
		}
		next, ok := e.nextTick(k, t, started)
		if !ok {
			e.res.Unfinished = len(e.pending)
			break
		}
		k = next
	}
	return nil
}

// needPlan says whether this tick needs a plan. Policies that may reshape
// are asked every tick while any job is active (they re-allocate each
// interval); the others only when a pending job could start (enough free
// GPUs for the smallest allowed start)
// and, with Config.SkipUnchanged, the cluster changed since their last plan.
func (e *engine) needPlan() bool {
	if e.reshape {
		return len(e.pending)+len(e.running) > 0
	}
	return len(e.pending) > 0 && e.cl.free >= e.minPendingGPUs() && (e.changed || !e.cfg.SkipUnchanged)
}

// minPendingGPUs is the fewest GPUs any pending job may start with (its
// request, or the low end of its hint's gpus= range). With fewer free GPUs
// no honest plan can start anything, so the tick needs no plan.
func (e *engine) minPendingGPUs() int {
	m := 1 << 30
	for _, i := range e.pending {
		m = min(m, e.jobs[i].minGPUs)
	}
	return max(1, m)
}

// nextTick picks the next tick to simulate, skipping ticks at which
// nothing can change. false means the run is stuck.
func (e *engine) nextTick(k int64, t float64, started int) (int64, bool) {
	iv := e.cfg.Interval.Seconds()
	tickAt := func(s float64) int64 { return max(k+1, int64(math.Ceil(s/iv-1e-9))) }
	if started > 0 || len(e.running) > 0 {
		e.idleSince = -1
	}
	if len(e.running) == 0 && started == 0 {
		if len(e.pending) == 0 {
			if e.next >= len(e.jobs) {
				return 0, true // unreachable: the loop ends when all jobs are done
			}
			return tickAt(e.jobs[e.next].tj.Submit), true
		}
		// Jobs wait on an idle cluster: ask again every tick (aging may
		// start them), up to StallLimit.
		if e.idleSince < 0 {
			e.idleSince = t
		}
		return k + 1, t-e.idleSince < e.cfg.StallLimit.Seconds()
	}
	if e.reshape || e.needPlan() {
		return k + 1, true
	}
	// Nothing changes until a job ends or arrives.
	soon := math.Inf(1)
	if e.next < len(e.jobs) {
		soon = e.jobs[e.next].tj.Submit
	}
	for _, i := range e.running {
		soon = min(soon, e.jobs[i].endAt())
	}
	return tickAt(soon), true
}
