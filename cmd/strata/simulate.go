package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/simulate"
	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/sim"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "replay a job trace on a simulated GPU cluster under one or more policies",
		UsageText: "strata simulate --trace FILE [--scaling FILE] --cluster " + sim.ClusterSyntax + " --policy slurm,smd[,P...]\n" +
			"   [--scheduler slurm|ideal] [--interval 60s] [--json [--jobs]] [--plot DIR] [Slurm knobs]\n" +
			"strata simulate --markdown [--whatif] REPORT.json...\n" +
			"strata simulate --from-slurmdbd [-S now-30days] [-E now] [--partition P,...] [--policy smd[,P...]] [--json]",
		Description: "Runs the planner's own policies (the code `strata run` uses) against a simulated\n" +
			"cluster. With --scheduler slurm (the default) a model of slurmctld starts jobs — main\n" +
			"scheduler and EASY backfill by time limits, multifactor priority — from what Strata's\n" +
			"cycle wrote every --interval through the daemon's guards (priority, GPU request, begin\n" +
			"time), as on a real cluster; --policy slurm is Slurm alone, nothing written. With\n" +
			"--scheduler ideal the simulator starts the jobs each plan admits itself and lets\n" +
			"tiresias, optimus and *-elastic preempt or resize (for comparison with published\n" +
			"simulators). By default all policies see the true durations (oracle); --knowledge realistic\n" +
			"gives hints that err, jobs without hints and modal time limits, --users and --dishonest make\n" +
			"users and liars. In Slurm mode a job killed at its time limit is resubmitted by its user, and\n" +
			"every run that ends feeds its user's record, which Strata's cycle applies.\n\n" +
			"--cluster NODESxGPUS[:TYPE] may be followed by settings: cpus=N and mem=SIZE per node\n" +
			"(Slurm's units: a bare number is MB; default 12 CPUs and 48G per GPU), bb=SIZE for a shared\n" +
			"burst-buffer pool, bbbw=SIZE/s for its stage-in/stage-out bandwidth per job and\n" +
			"bbpoolbw=SIZE/s for the total that concurrent transfers share, e.g.\n" +
			"16x4:t4,cpus=48,mem=192G,bb=2T,bbbw=1G/s,bbpoolbw=4G/s. Jobs ask for the trace's cpus and memory_mib\n" +
			"(else the node's share per GPU) and its bb_bytes (bb_in_bytes staged in before the job\n" +
			"starts, bb_out_bytes staged out after it ends). See docs/evaluation.md.\n\n" +
			"--from-slurmdbd replays the site's own jobs that ended between -S and -E (slurmdbd, through\n" +
			"slurmrestd) on its own nodes and partitions, Slurm alone against --policy (default smd), and\n" +
			"reports the change in wait and JCT per partition and user (docs/operations.md).",
		Flags:  append(append(append(simulate.Flags(), cliflags.WriteLimits()...), simulate.SiteFlags()...), cliflags.Slurm()...),
		Action: runSimulate,
	}
}

func runSimulate(c *cli.Context) error {
	if c.Bool("markdown") {
		return simulate.Markdown(c.App.Writer, c.Args().Slice(), c.Bool("whatif"), c.Bool("honesty"))
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
	if c.Bool(simulate.FlagFromSlurmdbd) {
		return runSiteSimulate(c, o, out)
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
		Preemptible: c.Bool("preemptible"), Predictor: c.String("predictor"), EnergyPrice: c.Float64("energy-price"),
		Calibrate:  c.Bool("calibrate"),
		SpeedError: c.Float64("speed-error"), SpeedNoise: c.Float64("speed-noise"), SpeedErrorSeed: c.Uint64("speed-error-seed"),
		Parallel: c.Int("parallel"), Label: c.String("label"), Plot: c.String("plot"), JSON: c.Bool("json"), Jobs: c.Bool("jobs"),
	}
	o.WriteTrace, o.SynthBBCatalog = c.String("write-trace"), c.String("synth-bb-catalog")
	o.Users, o.Dishonest, o.Knowledge, o.KnowledgeSeed = c.Int("users"), c.String("dishonest"), c.String("knowledge"), c.Uint64("knowledge-seed")
	o.PriorityWeightFairshare, o.PriorityWeightQOS, o.QOSHigh = c.Float64("priority-weight-fairshare"), c.Float64("priority-weight-qos"), c.Float64("qos-high")
	o.FairshareHalfLife, o.NeverHint = c.Duration("fairshare-half-life"), c.Float64("never-hint")
	o.Accounts, o.FairTree = c.Int("accounts"), c.Bool("fair-tree")
	o.PartitionPriority, o.PriorityWeightPartition = c.String("partition-priority"), c.Float64("priority-weight-partition")
	o.ClaimMargin, o.NoTrust = c.Float64("claim-margin"), c.Bool("no-trust")
	o.PS = simulate.PSOptions{Share: c.Float64("ps-share"), Choice: c.String("ps-choice"), Seed: c.Uint64("ps-seed")}
	if o.Knowledge == sim.KnowledgeRealistic && !c.IsSet("predictor") {
		o.Predictor = sim.PredictorHistory // jobs without a hint are timed from history, as the daemon times them
	}
	if s := c.String("synth-bb"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return o, usageError(fmt.Errorf("--synth-bb %q: want a seed, a whole number ≥ 0", s))
		}
		o.SynthBB = &seed
	}
	if s := c.String("synth-deadlines"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return o, usageError(fmt.Errorf("--synth-deadlines %q: want a seed, a whole number ≥ 0", s))
		}
		o.SynthDeadlines = &seed
	}
	p := config.PlannerOptions(config.FileFrom(c.Context)) // the site's defaults without a file, as strata run
	o.Planner = &p
	g := cliflags.WriteLimitOptions(c) // the site's own, as `strata run` writes through them
	o.Guard = &g
	return o, nil
}
