package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/simulate"
	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/sim"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "replay a job trace on a simulated GPU cluster under one or more policies",
		UsageText: "strata simulate --trace FILE [--scaling FILE] --cluster " + sim.ClusterSyntax + " --policy slurm,smd[,P...]\n" +
			"   [--scheduler slurm|ideal] [--interval 60s] [--json [--jobs]] [--plot DIR] [Slurm knobs]\n" +
			"strata simulate --markdown [--whatif] REPORT.json...",
		Description: "Runs the planner's own policies (the code `strata run` uses) against a simulated\n" +
			"cluster. With --scheduler slurm (the default) a model of slurmctld starts jobs — main\n" +
			"scheduler and EASY backfill by time limits, multifactor priority — from what Strata's\n" +
			"cycle wrote every --interval through the daemon's guards (priority, GPU request, begin\n" +
			"time), as on a real cluster; --policy slurm is Slurm alone, nothing written. With\n" +
			"--scheduler ideal the simulator starts the jobs each plan admits itself and lets\n" +
			"tiresias, optimus and *-elastic preempt or resize (for comparison with published\n" +
			"simulators). All policies see the true durations (oracle).\n\n" +
			"--cluster NODESxGPUS[:TYPE] may be followed by settings: cpus=N and mem=SIZE per node\n" +
			"(Slurm's units: a bare number is MB; default 12 CPUs and 48G per GPU), bb=SIZE for a shared\n" +
			"burst-buffer pool and bbbw=SIZE/s for its stage-in/stage-out bandwidth per job, e.g.\n" +
			"16x4:t4,cpus=48,mem=192G,bb=2T,bbbw=1G/s. Jobs ask for the trace's cpus and memory_mib\n" +
			"(else the node's share per GPU) and its bb_bytes (bb_in_bytes staged in before the job\n" +
			"starts, bb_out_bytes staged out after it ends). See docs/evaluation.md.",
		Flags:  simulateFlags(),
		Action: runSimulate,
	}
}

func simulateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "trace CSV (job_id,submit_time,duration_s,gpus[,model,batch_size,nodes,...])"},
		&cli.StringFlag{Name: "scaling", Usage: "scaling curves CSV (model,batch_size,gpus,duration_s), e.g. pollux_scaling.csv"},
		&cli.StringFlag{Name: "cluster", Usage: "simulated cluster " + sim.ClusterSyntax + ", e.g. 16x4:t4 or 16x4:t4,mem=192G,bb=2T,bbbw=1G/s"},
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
		&cli.BoolFlag{Name: "jobs", Usage: "with --json: add every job's row per policy (id, submit, start, end, JCT, GPUs asked and at start, restarts, state)"},
		&cli.StringFlag{Name: "plot", Usage: "write JCT CDF, GPU utilization and queue-length plots (SVG) into `DIR`"},
		&cli.BoolFlag{Name: "skip-bad", Usage: "drop malformed trace rows (and report how many) instead of failing"},
		&cli.DurationFlag{Name: "restart-penalty", Value: 30 * time.Second, Usage: "time a preempted or resized job needs to restart"},
		&cli.StringFlag{Name: "predictor", Value: "oracle", Usage: "how policies time jobs without a model hint: oracle (the true durations) or history (Helios' estimator, learning online from the jobs that completed earlier in the run, as the daemon learns from Postgres)"},
		&cli.BoolFlag{Name: "preemptible", Usage: "opt every trace job in to preemption (preempt=yes in its hint, requeueable): policies may stop and restart them (Slurm mode: signal, checkpoint, requeue, restart)"},
		&cli.BoolFlag{Name: "truth-model", Usage: "what-if: jobs without a scaling curve whose model/batch_size/iterations the catalog knows scale by the planner's time model (default: fixed size)"},
		&cli.Float64Flag{Name: "gpu-range", Value: 1, Usage: "simulated users allow gpus=1-ceil(F x request) for jobs with a scaling curve"},
		&cli.Float64Flag{Name: "tiresias-threshold", Value: 16, Usage: "tiresias queue threshold in GPU-hours (16 as in the Pollux artifact; 0 = the policy's default)"},
		&cli.StringSliceFlag{Name: "power", Usage: "GPU power model override TYPE=IDLE_W:BUSY_W (repeatable)"},
		&cli.StringFlag{Name: "burst-buffer", Usage: "capacity of a shared burst-buffer pool, e.g. 100T (the same as bb= in --cluster)"},
		&cli.StringFlag{Name: "synth-bb", Usage: "give every job of a known model (the Pollux workloads') burst-buffer data and host memory by the documented rule with seed `SEED` (docs/evaluation.md § Burst buffers that bind)"},
		&cli.StringFlag{Name: "write-trace", Usage: "write the trace as simulated (after --synth-bb) to `FILE`; without --policy, only that"},
		&cli.BoolFlag{Name: "hide-burst-buffer", Usage: "what-if: the policies do not see the burst-buffer pool (Slurm still enforces it)"},
		&cli.BoolFlag{Name: "skip-unchanged", Usage: "plan fifo/smd/... only when the cluster changed (faster on large traces; exact for policies without aging)"},
		&cli.IntFlag{Name: "parallel", Value: min(2, runtime.GOMAXPROCS(0)), Usage: "policies simulated at once"},
		&cli.StringFlag{Name: "label", Usage: "name of the run in --markdown tables (default: the trace's file name)"},
		&cli.BoolFlag{Name: "whatif", Usage: "with --markdown: one row per policy run (variants of one workload)"},
		&cli.BoolFlag{Name: "markdown", Usage: "instead of simulating, write Markdown comparison tables from the --json reports given as arguments (as docs/evaluation.md is made)"},
	}
}

func runSimulate(c *cli.Context) error {
	if c.Bool("markdown") {
		return simulate.Markdown(c.App.Writer, c.Args().Slice(), c.Bool("whatif"))
	}
	// The progress bar is Strata's own text (no user input): it goes to the
	// terminal unescaped, so that its carriage returns redraw the line.
	raw := term.Unwrap(c.App.ErrWriter)
	st, _ := os.Stderr.Stat()
	tty := st != nil && st.Mode()&os.ModeCharDevice != 0 && raw == os.Stderr
	out := simulate.Output{Out: c.App.Writer, Progress: c.App.ErrWriter, TTY: tty}
	if tty {
		out.Progress = raw
	}
	o, err := simulateOptions(c)
	if err != nil {
		return err
	}
	return simulate.Run(c.Context, o, out, logger(c))
}

// simulateOptions reads the flags of c and the configuration's [planner]
// section (the site's settings, as run and plan use them).
func simulateOptions(c *cli.Context) (simulate.Options, error) {
	o := simulate.Options{
		Trace: c.String("trace"), Scaling: c.String("scaling"), Cluster: c.String("cluster"), Policy: c.String("policy"),
		Scheduler: c.String("scheduler"), SlurmBackfill: c.String("slurm-backfill"),
		TimeLimitFactor:   c.Float64("time-limit-factor"),
		PriorityWeightAge: c.Float64("priority-weight-age"), PriorityWeightJobSize: c.Float64("priority-weight-job-size"),
		SchedInterval: c.Duration("sched-interval"), BFInterval: c.Duration("bf-interval"),
		BatchSchedDelay: c.Duration("batch-sched-delay"),
		Interval:        c.Duration("interval"), RestartPenalty: c.Duration("restart-penalty"),
		GPURange: c.Float64("gpu-range"), TiresiasThreshold: c.Float64("tiresias-threshold"),
		Power: c.StringSlice("power"), BurstBuffer: c.String("burst-buffer"), HideBurstBuffer: c.Bool("hide-burst-buffer"),
		TruthModel: c.Bool("truth-model"), SkipUnchanged: c.Bool("skip-unchanged"), SkipBad: c.Bool("skip-bad"),
		Preemptible: c.Bool("preemptible"), Predictor: c.String("predictor"),
		Parallel: c.Int("parallel"), Label: c.String("label"), Plot: c.String("plot"), JSON: c.Bool("json"), Jobs: c.Bool("jobs"),
	}
	o.WriteTrace = c.String("write-trace")
	if s := c.String("synth-bb"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return o, usageError(fmt.Errorf("--synth-bb %q: want a seed, a whole number ≥ 0", s))
		}
		o.SynthBB = &seed
	}
	if f := config.FileFrom(c.Context); f != nil {
		p := f.Planner.Options()
		o.Planner = &p
	}
	return o, nil
}
