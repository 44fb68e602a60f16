package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/sim"
	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"
)

// simUsageError is invalid input to `strata simulate` (exit status 2).
type simUsageError struct{ err error }

func (e simUsageError) Error() string { return e.err.Error() }
func (e simUsageError) Unwrap() error { return e.err }
func (e simUsageError) ExitCode() int { return 2 }

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "replay a job trace on a simulated GPU cluster under one or more policies",
		UsageText: "strata simulate --trace FILE [--scaling FILE] --cluster NODESxGPUS[:TYPE] --policy slurm,smd[,P...]\n" +
			"   [--scheduler slurm|ideal] [--interval 60s] [--json] [--plot DIR] [Slurm knobs]",
		Description: "Runs the planner's own policies (the code `strata run` uses) against a simulated\n" +
			"cluster. With --scheduler slurm (the default) a model of slurmctld starts jobs — main\n" +
			"scheduler and EASY backfill by time limits, multifactor priority — from what Strata's\n" +
			"cycle wrote every --interval through the daemon's guards (priority, GPU request, begin\n" +
			"time), as on a real cluster; --policy slurm is Slurm alone, nothing written. With\n" +
			"--scheduler ideal the simulator starts the jobs each plan admits itself and lets\n" +
			"tiresias, optimus and *-elastic preempt or resize (for comparison with published\n" +
			"simulators). All policies see the true durations (oracle). See docs/evaluation.md.",
		Flags:  simulateFlags(),
		Action: runSimulate,
	}
}

func simulateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "trace CSV (job_id,submit_time,duration_s,gpus[,model,batch_size,nodes,...])"},
		&cli.StringFlag{Name: "scaling", Usage: "scaling curves CSV (model,batch_size,gpus,duration_s), e.g. pollux_scaling.csv"},
		&cli.StringFlag{Name: "cluster", Usage: "simulated cluster NODESxGPUS[:TYPE], e.g. 16x4:t4"},
		&cli.StringFlag{Name: "policy", Usage: "comma-separated policies, or all: slurm (Slurm alone), " + strings.Join(planner.PolicyNames(), ", ")},
		&cli.StringFlag{Name: "scheduler", Value: sim.SchedulerSlurm, Usage: "who starts jobs: slurm (a slurmctld model, from what Strata wrote) or ideal (Strata itself)"},
		&cli.StringFlag{Name: "slurm-backfill", Value: "easy", Usage: "Slurm mode: backfill reservations, easy (the first blocked job) or conservative (every blocked job)"},
		&cli.Float64Flag{Name: "time-limit-factor", Value: 2, Usage: "Slurm mode: a job's time limit is duration × this (whole minutes) when the trace has no time_limit_s"},
		&cli.Float64Flag{Name: "priority-weight-age", Value: 1000, Usage: "Slurm mode: PriorityWeightAge"},
		&cli.Float64Flag{Name: "priority-weight-job-size", Value: 1000, Usage: "Slurm mode: PriorityWeightJobSize"},
		&cli.DurationFlag{Name: "sched-interval", Value: 60 * time.Second, Usage: "Slurm mode: sched_interval (full main-scheduler pass)"},
		&cli.DurationFlag{Name: "bf-interval", Value: 30 * time.Second, Usage: "Slurm mode: bf_interval (backfill cycle)"},
		&cli.DurationFlag{Name: "batch-sched-delay", Value: 3 * time.Second, Usage: "Slurm mode: batch_sched_delay (least time between event-triggered passes)"},
		&cli.DurationFlag{Name: "interval", Value: 60 * time.Second, Usage: "scheduling interval"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object instead of a table"},
		&cli.StringFlag{Name: "plot", Usage: "write JCT CDF, GPU utilization and queue-length plots (SVG) into `DIR`"},
		&cli.BoolFlag{Name: "skip-bad", Usage: "drop malformed trace rows (and report how many) instead of failing"},
		&cli.DurationFlag{Name: "restart-penalty", Value: 30 * time.Second, Usage: "time a preempted or resized job needs to restart"},
		&cli.BoolFlag{Name: "preemptible", Usage: "opt every trace job in to preemption (preempt=yes in its hint, requeueable): policies may stop and restart them (Slurm mode: signal, checkpoint, requeue, restart)"},
		&cli.BoolFlag{Name: "truth-model", Usage: "what-if: jobs without a scaling curve whose model/batch_size/iterations the catalog knows scale by the planner's time model (default: fixed size)"},
		&cli.Float64Flag{Name: "gpu-range", Value: 1, Usage: "simulated users allow gpus=1-ceil(F x request) for jobs with a scaling curve"},
		&cli.Float64Flag{Name: "tiresias-threshold", Value: 16, Usage: "tiresias queue threshold in GPU-hours (16 as in the Pollux artifact; 0 = the policy's default)"},
		&cli.StringSliceFlag{Name: "power", Usage: "GPU power model override TYPE=IDLE_W:BUSY_W (repeatable)"},
		&cli.StringFlag{Name: "burst-buffer", Usage: "capacity of a shared burst-buffer pool, e.g. 100T"},
		&cli.BoolFlag{Name: "skip-unchanged", Usage: "plan fifo/smd/... only when the cluster changed (faster on large traces; exact for policies without aging)"},
		&cli.IntFlag{Name: "parallel", Value: min(2, runtime.GOMAXPROCS(0)), Usage: "policies simulated at once"},
		&cli.StringFlag{Name: "label", Hidden: true, Usage: "name of the run in --markdown tables"},
		&cli.BoolFlag{Name: "whatif", Hidden: true, Usage: "with --markdown: one row per policy run (variants)"},
		&cli.BoolFlag{Name: "markdown", Hidden: true, Usage: "write the evaluation tables from the JSON reports given as arguments"},
	}
}

func runSimulate(c *cli.Context) error {
	if c.Bool("markdown") {
		return simMarkdown(c)
	}
	cfg, policies, err := simConfig(c)
	if err != nil {
		return simUsageError{err}
	}
	tr, err := simReadTrace(c.String("trace"), c.Bool("skip-bad"))
	if err != nil {
		return simUsageError{err}
	}
	lg := logger(c)
	if tr.Skipped > 0 || tr.CPUOnly > 0 {
		lg.Warn().Int("skipped_rows", tr.Skipped).Int("cpu_only_rows", tr.CPUOnly).Msg("trace rows not simulated")
	}
	rep := &sim.Report{Trace: c.String("trace"), Label: c.String("label"), Cluster: cfg.Cluster.String(), IntervalS: cfg.Interval.Seconds(),
		TraceJobs: len(tr.Jobs), SkippedBad: tr.Skipped, CPUOnly: tr.CPUOnly, Published: sim.Published(tr)}
	rep.Results, err = simRunAll(c.Context, c, cfg, tr, policies)
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		lg.Debug().Str("policy", r.Policy).Int("plan_calls", r.PlanCalls).Dur("plan_time", r.PlanTime).Msg("policy run done")
		if r.HonestyViolations+r.RejectedStarts+r.RejectedResizes > 0 {
			lg.Warn().Str("policy", r.Policy).Int("honesty_violations", r.HonestyViolations).
				Int("rejected_starts", r.RejectedStarts).Int("rejected_resizes", r.RejectedResizes).
				Msg("policy returned decisions the simulator could not apply")
		}
	}
	if dir := c.String("plot"); dir != "" {
		if err := sim.WritePlots(dir, rep); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		return rep.WriteJSON(c.App.Writer)
	}
	return rep.WriteTable(c.App.Writer)
}

// simRunAll runs every policy (a few at once) and returns the results in
// the order the policies were given.
func simRunAll(ctx context.Context, c *cli.Context, cfg sim.Config, tr *sim.Trace, policies []string) ([]*sim.Result, error) {
	st, _ := os.Stderr.Stat()
	tty := st != nil && st.Mode()&os.ModeCharDevice != 0 && c.App.ErrWriter == os.Stderr
	bar := sim.NewProgress(c.App.ErrWriter, tty, len(policies))
	defer bar.Close()
	out := make([]*sim.Result, len(policies))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, c.Int("parallel")))
	for i, name := range policies {
		g.Go(func() error {
			pc := cfg
			pc.Progress = bar.Func(i)
			r, err := sim.RunNamed(gctx, pc, tr, name)
			if err != nil {
				return err
			}
			bar.Finish(i)
			out[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// simConfig validates the flags into a run configuration.
func simConfig(c *cli.Context) (sim.Config, []string, error) {
	var cfg sim.Config
	if c.String("trace") == "" || c.String("cluster") == "" || c.String("policy") == "" {
		return cfg, nil, errors.New("simulate needs --trace FILE, --cluster NODESxGPUS[:TYPE] and --policy P[,P...]")
	}
	cs, err := sim.ParseCluster(c.String("cluster"))
	if err != nil {
		return cfg, nil, err
	}
	if bb := c.String("burst-buffer"); bb != "" {
		if cs.BurstBufferBytes, err = burstbuffer.ParseSize(bb); err != nil {
			return cfg, nil, fmt.Errorf("--burst-buffer: %w", err)
		}
	}
	cfg = sim.Config{Cluster: cs, Interval: c.Duration("interval"),
		RestartPenalty: c.Duration("restart-penalty"), Range: sim.HintRange{MaxFactor: c.Float64("gpu-range")},
		TiresiasThreshold: c.Float64("tiresias-threshold") * 3600, SkipUnchanged: c.Bool("skip-unchanged")}
	cfg.Preemptible = c.Bool("preemptible")
	if cfg.Interval <= 0 || cfg.RestartPenalty < 0 || cfg.Range.MaxFactor < 1 || cfg.TiresiasThreshold < 0 {
		return cfg, nil, errors.New("--interval must be > 0, --restart-penalty and --tiresias-threshold ≥ 0, --gpu-range ≥ 1")
	}
	if f := configFromContext(c.Context); f != nil {
		o := f.Planner.Options() // the site's [planner] settings, as run and plan use them
		cfg.Planner = &o
	}
	cfg.Scheduler = c.String("scheduler")
	if cfg.Scheduler != sim.SchedulerSlurm && cfg.Scheduler != sim.SchedulerIdeal {
		return cfg, nil, fmt.Errorf("--scheduler %q: want slurm or ideal", cfg.Scheduler)
	}
	sc := sim.DefaultSlurmConfig()
	switch c.String("slurm-backfill") {
	case "easy":
		sc.Reservations = 1
	case "conservative":
		sc.Reservations = 0
	default:
		return cfg, nil, fmt.Errorf("--slurm-backfill %q: want easy or conservative", c.String("slurm-backfill"))
	}
	sc.TimeLimitFactor = c.Float64("time-limit-factor")
	sc.PriorityWeightAge, sc.PriorityWeightJobSize = c.Float64("priority-weight-age"), c.Float64("priority-weight-job-size")
	sc.SchedInterval, sc.BFInterval, sc.BatchSchedDelay = c.Duration("sched-interval"), c.Duration("bf-interval"), c.Duration("batch-sched-delay")
	if sc.TimeLimitFactor < 1 || sc.SchedInterval <= 0 || sc.BFInterval <= 0 || sc.BatchSchedDelay < 0 {
		return cfg, nil, errors.New("--time-limit-factor must be ≥ 1, --sched-interval and --bf-interval > 0, --batch-sched-delay ≥ 0")
	}
	if err := sc.Validate(); err != nil {
		return cfg, nil, err
	}
	cfg.Slurm = sc
	for _, s := range c.StringSlice("power") {
		typ, p, err := sim.ParsePower(s)
		if err != nil {
			return cfg, nil, err
		}
		if cfg.Power.Overrides == nil {
			cfg.Power.Overrides = map[string]sim.GPUPower{}
		}
		cfg.Power.Overrides[typ] = p
	}
	if f := c.String("scaling"); f != "" {
		if cfg.Truth.Scaling, err = simReadScaling(f); err != nil {
			return cfg, nil, err
		}
	}
	if c.Bool("truth-model") {
		cfg.Truth = sim.NewModelTruth(cfg.Truth.Scaling, cs.GPUsPerNode)
	}
	policies, err := simPolicies(c.String("policy"), cfg.Scheduler)
	return cfg, policies, err
}

// simPolicies splits and checks --policy ("all" = every registered policy;
// in Slurm mode also slurm, Slurm alone).
func simPolicies(s, scheduler string) ([]string, error) {
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

func simReadTrace(path string, skipBad bool) (*sim.Trace, error) {
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

func simReadScaling(path string) (*sim.Scaling, error) {
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

// simMarkdown writes the evaluation tables of the JSON reports named as
// arguments (hidden mode used by scripts/evaluate.sh).
func simMarkdown(c *cli.Context) error {
	if c.NArg() == 0 {
		return simUsageError{errors.New("--markdown needs JSON report files as arguments")}
	}
	var reps []*sim.Report
	for _, path := range c.Args().Slice() {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("open report: %w", err)
		}
		r, err := sim.ReadReport(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		reps = append(reps, r)
	}
	if c.Bool("whatif") {
		return sim.WriteWhatIfs(c.App.Writer, reps)
	}
	if len(reps[0].Results) > 0 && reps[0].Results[0].Scheduler == sim.SchedulerSlurm {
		return sim.WriteSlurmEvaluation(c.App.Writer, reps)
	}
	return sim.WriteEvaluation(c.App.Writer, reps)
}
