package simulate

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// Options are the settings of one `strata simulate` run, as its flags give
// them (error messages name the flags).
type Options struct {
	Trace   string // trace CSV
	Scaling string // scaling curves CSV ("" = none)
	Cluster string // NODESxGPUS[:TYPE]
	Policy  string // comma-separated policies, or all

	Scheduler             string // sim.SchedulerSlurm or sim.SchedulerIdeal
	SlurmBackfill         string // easy or conservative
	TimeLimitFactor       float64
	PriorityWeightAge     float64
	PriorityWeightJobSize float64
	// The site's policy (sim.SlurmConfig) and --never-hint.
	PriorityWeightFairshare, PriorityWeightQOS, QOSHigh, NeverHint float64
	FairshareHalfLife                                              time.Duration
	Accounts                                                       int
	FairTree                                                       bool
	PartitionPriority                                              string
	PriorityWeightPartition                                        float64
	SchedInterval                                                  time.Duration
	BFInterval                                                     time.Duration
	BatchSchedDelay                                                time.Duration

	Interval          time.Duration
	RestartPenalty    time.Duration
	GPURange          float64 // users allow gpus=1-ceil(GPURange × request)
	TiresiasThreshold float64 // GPU-hours
	Power             []string
	BurstBuffer       string // pool capacity ("" = none)
	TruthModel        bool
	SkipUnchanged     bool
	SkipBad           bool
	// Preemptible opts every trace job in to preemption (preempt=yes,
	// requeueable).
	Preemptible bool
	// Predictor: oracle (true durations) or history (learned online).
	Predictor string
	// Calibrate fits the calibration online (sim.Config.Calibrate);
	// SpeedError, SpeedNoise and SpeedErrorSeed perturb the models' true
	// speeds (sim.SpeedError).
	Calibrate      bool
	SpeedError     float64
	SpeedNoise     float64
	SpeedErrorSeed uint64
	// HideBurstBuffer hides the pool from the policies (the
	// burst-buffer-unaware what-if; Slurm still enforces it).
	HideBurstBuffer bool
	// SynthBB, when set, gives the trace's jobs burst-buffer data and
	// memory by sim.SynthBurstBuffer with this seed; WriteTrace writes the
	// trace as simulated to this file ("" = none).
	SynthBB *uint64
	// SynthBBCatalog names the datasets' catalog (sim.BBCatalogs; "" or
	// "auto": the one that knows the trace's models).
	SynthBBCatalog string
	WriteTrace     string
	// SynthDeadlines, when set, gives the trace's jobs deadlines and
	// tardiness weights by sim.SynthDeadlines with this seed; EnergyPrice
	// is the price of a kWh for the cost terms (0: the default when there
	// are deadlines).
	SynthDeadlines *uint64
	EnergyPrice    float64

	// Users gives jobs without a user one of Users users (sim.AssignUsers;
	// 0 = as the trace says). Dishonest is FRACTION:FACTOR
	// (sim.ParseHonesty; "" = everybody honest). Knowledge is oracle or
	// realistic (sim.RealisticKnowledge); KnowledgeSeed seeds the
	// dishonest users' draw and the realistic draws.
	Users         int
	Dishonest     string
	Knowledge     string
	KnowledgeSeed uint64
	// ClaimMargin > 0 binds claims (planner.Options.BindClaims) at this
	// margin; 0 leaves the site's [planner] setting. NoTrust leaves out the
	// users' records (sim.Config.NoTrust).
	ClaimMargin float64
	NoTrust     bool

	// PS is the parameter-server what-if (psshare.go).
	PS PSOptions

	// Planner is the site's [planner] section (nil: the planner's defaults).
	Planner *planner.Options
	// Guard are the site's write limits (the same flags and keys as
	// strata run's; nil: the daemon's defaults).
	Guard *decide.Options

	Parallel int    // policies simulated at once
	Label    string // name of the run in the report
	Plot     string // directory for SVG plots ("" = none)
	JSON     bool   // one JSON object instead of a table
	// Jobs adds each policy's per-job rows to the JSON (needs JSON).
	Jobs bool
}

// TraceOnly reports a run that only writes the trace (--write-trace
// without --policy).
func (o Options) TraceOnly() bool { return o.WriteTrace != "" && o.Policy == "" }

// Config validates o into a simulator configuration and the list of
// policies to run. It reads the scaling curves.
func (o Options) Config() (sim.Config, []string, error) {
	if o.Trace == "" || o.Cluster == "" || o.Policy == "" {
		return sim.Config{}, nil, errors.New("simulate needs --trace FILE, --cluster NODESxGPUS[:TYPE] and --policy P[,P...]")
	}
	cfg, err := o.baseConfig()
	if err != nil {
		return cfg, nil, err
	}
	policies, err := Policies(o.Policy, cfg.Scheduler)
	return cfg, policies, err
}

// baseConfig is Config without the policies (--write-trace alone needs
// the cluster, the truth and the range for --synth-deadlines).
func (o Options) baseConfig() (sim.Config, error) {
	var cfg sim.Config
	cs, err := sim.ParseCluster(o.Cluster)
	if err != nil {
		return cfg, err
	}
	if o.BurstBuffer != "" {
		if cs.BurstBufferBytes > 0 {
			return cfg, errors.New("--burst-buffer and bb= in --cluster both set the pool: give one")
		}
		if cs.BurstBufferBytes, err = burstbuffer.ParseSize(o.BurstBuffer); err != nil {
			return cfg, fmt.Errorf("--burst-buffer: %w", err)
		}
	}
	cfg = sim.Config{Cluster: cs, Interval: o.Interval,
		RestartPenalty: o.RestartPenalty, Range: sim.HintRange{MaxFactor: o.GPURange},
		TiresiasThreshold: o.TiresiasThreshold * 3600, SkipUnchanged: o.SkipUnchanged, Preemptible: o.Preemptible,
		Predictor: o.Predictor, HideBurstBuffer: o.HideBurstBuffer, Calibrate: o.Calibrate}
	if cfg.Interval <= 0 || cfg.RestartPenalty < 0 || cfg.Range.MaxFactor < 1 || cfg.TiresiasThreshold < 0 {
		return cfg, errors.New("--interval must be > 0, --restart-penalty and --tiresias-threshold ≥ 0, --gpu-range ≥ 1")
	}
	if o.Jobs && !o.JSON {
		return cfg, errors.New("--jobs adds per-job rows to the JSON: give --json too")
	}
	cfg.JobRows = o.Jobs
	cfg.Planner, cfg.Guard = o.Planner, o.Guard
	cfg.Scheduler = o.Scheduler
	if cfg.Scheduler != sim.SchedulerSlurm && cfg.Scheduler != sim.SchedulerIdeal {
		return cfg, fmt.Errorf("--scheduler %q: want slurm or ideal", cfg.Scheduler)
	}
	if cfg.Slurm, err = o.slurmConfig(); err != nil {
		return cfg, err
	}
	for _, s := range o.Power {
		typ, p, err := sim.ParsePower(s)
		if err != nil {
			return cfg, err
		}
		if cfg.Power.Overrides == nil {
			cfg.Power.Overrides = map[string]sim.GPUPower{}
		}
		cfg.Power.Overrides[typ] = p
	}
	if o.Scaling != "" {
		if cfg.Truth.Scaling, err = readScaling(o.Scaling); err != nil {
			return cfg, err
		}
	}
	if o.TruthModel {
		cfg.Truth = sim.NewModelTruth(cfg.Truth.Scaling, cs.GPUsPerNode)
	}
	if o.EnergyPrice < 0 {
		return cfg, errors.New("--energy-price must be ≥ 0")
	}
	cfg.EnergyPrice = o.EnergyPrice
	if err := o.PS.apply(&cfg); err != nil {
		return cfg, err
	}
	return cfg, o.accountability(&cfg)
}

// accountability checks --users, --dishonest and --knowledge and applies
// --claim-margin and --no-trust to cfg.
func (o Options) accountability(cfg *sim.Config) error {
	if o.Users < 0 {
		return errors.New("--users must be ≥ 0")
	}
	if o.SpeedError != 0 && !(o.SpeedError >= 1) || math.IsInf(o.SpeedError, 1) {
		return fmt.Errorf("--speed-error %v: want a spread ≥ 1 (1: the catalog is right; 3: each model up to 3× off)", o.SpeedError)
	}
	if !(o.SpeedNoise >= 0 && o.SpeedNoise <= 3) {
		return fmt.Errorf("--speed-noise %v: want a sigma from 0 to 3 (0: none; 0.5: a job's run ±65 %% at one sigma)", o.SpeedNoise)
	}
	if o.Dishonest != "" {
		if _, err := sim.ParseHonesty(o.Dishonest); err != nil {
			return fmt.Errorf("--dishonest %w", err)
		}
	}
	switch o.Knowledge {
	case "", sim.KnowledgeOracle, sim.KnowledgeRealistic:
	default:
		return fmt.Errorf("--knowledge %q: want %s or %s", o.Knowledge, sim.KnowledgeOracle, sim.KnowledgeRealistic)
	}
	if o.ClaimMargin < 0 || (o.ClaimMargin > 0 && o.ClaimMargin < 1) {
		return errors.New("--claim-margin must be 0 (the site's setting) or ≥ 1")
	}
	if o.ClaimMargin > 0 {
		var p planner.Options
		if cfg.Planner != nil {
			p = *cfg.Planner
		}
		p.BindClaims, p.ClaimMargin = true, o.ClaimMargin
		cfg.Planner = &p
	}
	cfg.NoTrust = o.NoTrust
	return nil
}

// users applies --users, --knowledge and --dishonest to the trace (in that
// order: the realistic error and a lie multiply).
func (o Options) users(tr *sim.Trace) *sim.Trace {
	tr = sim.AssignUsers(tr, o.Users)
	if o.Knowledge == sim.KnowledgeRealistic {
		tr = sim.RealisticKnowledge(o.KnowledgeSeed).Apply(tr)
	}
	tr = sim.NeverHint(tr, o.NeverHint, o.KnowledgeSeed)
	if h, err := sim.ParseHonesty(o.Dishonest); o.Dishonest != "" && err == nil {
		h.Seed = o.KnowledgeSeed
		tr, _ = sim.MakeDishonest(tr, h)
	}
	return tr
}

// slurmConfig is the model of slurmctld (Slurm mode).
func (o Options) slurmConfig() (sim.SlurmConfig, error) {
	sc := sim.DefaultSlurmConfig()
	switch o.SlurmBackfill {
	case "easy":
		sc.Reservations = 1
	case "conservative":
		sc.Reservations = 0
	default:
		return sc, fmt.Errorf("--slurm-backfill %q: want easy or conservative", o.SlurmBackfill)
	}
	sc.TimeLimitFactor = o.TimeLimitFactor
	sc.PriorityWeightAge, sc.PriorityWeightJobSize = o.PriorityWeightAge, o.PriorityWeightJobSize
	sc.PriorityWeightFairshare, sc.PriorityWeightQOS, sc.FairshareHalfLife = o.PriorityWeightFairshare, o.PriorityWeightQOS, o.FairshareHalfLife
	sc.QOSHigh, sc.QOSSeed, sc.Accounts, sc.FairTree = o.QOSHigh, o.KnowledgeSeed, o.Accounts, o.FairTree
	sc.PartitionPriority, sc.PriorityWeightPartition = o.PartitionPriority, o.PriorityWeightPartition
	if err := sc.Validate(); err != nil {
		return sc, fmt.Errorf("--partition-priority, --priority-weight-partition: %w", err)
	}
	if o.Accounts < 0 {
		return sc, errors.New("--accounts: want 0 (every user an account of its own) or more")
	}
	if o.QOSHigh < 0 || o.QOSHigh > 1 || o.NeverHint < 0 || o.NeverHint > 1 || o.QOSHigh != o.QOSHigh || o.NeverHint != o.NeverHint {
		return sc, errors.New("--qos-high and --never-hint: want a fraction from 0 to 1")
	}
	sc.SchedInterval, sc.BFInterval, sc.BatchSchedDelay = o.SchedInterval, o.BFInterval, o.BatchSchedDelay
	if sc.TimeLimitFactor < 1 || sc.SchedInterval <= 0 || sc.BFInterval <= 0 || sc.BatchSchedDelay < 0 {
		return sc, errors.New("--time-limit-factor must be ≥ 1, --sched-interval and --bf-interval > 0, --batch-sched-delay ≥ 0")
	}
	return sc, sc.Validate()
}

// Policies splits and checks --policy ("all" = every registered policy;
// in Slurm mode also slurm, Slurm alone).
func Policies(s, scheduler string) ([]string, error) {
	known := planner.PolicyNames()
	if scheduler == sim.SchedulerSlurm {
		known = append([]string{sim.PolicySlurm}, known...)
	}
	if s == "all" {
		return known, nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(known, p) {
			return nil, fmt.Errorf("--policy %q: choose from %s (or all)", p, strings.Join(known, ", "))
		}
		out = append(out, p)
	}
	return out, nil
}

func readTrace(path string, skipBad bool) (*sim.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	tr, err := sim.ReadTrace(f, sim.ReadOptions{SkipBad: skipBad})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

func readScaling(path string) (*sim.Scaling, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open scaling curves: %w", err)
	}
	defer f.Close()
	s, err := sim.ReadScaling(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
