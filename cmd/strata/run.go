package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/slurm"
)

// flagSlurmFullReadEvery turns on incremental job reads (slurm.Client.SetJobsFullReadEvery);
// flagSlurmIncrementalAbove turns them on by themselves on a large queue
// (slurm.Client.SetJobsIncrementalAbove).
const (
	flagSlurmFullReadEvery    = "slurm-full-read-every"
	flagSlurmIncrementalAbove = "slurm-incremental-above"
	// autoFullReadEvery is the full-read interval of the automatic mode.
	autoFullReadEvery = 5 * time.Minute
)

// reloadable are the run flags a SIGHUP re-reads from the configuration
// file (connections, listen address and lock name need a restart).
var reloadable = []string{cliflags.FlagRunPolicy, cliflags.FlagRunCompare, cliflags.FlagRunEnforce, cliflags.FlagRunInterval,
	cliflags.FlagRunMinRunPreempt, cliflags.FlagRunMaxPreemptDay, cliflags.FlagRunMaxDisturbed,
	cliflags.FlagRunMaxPerCycle, cliflags.FlagRunMaxPerJob, cliflags.FlagRunPrioHyst, cliflags.FlagRunMinGPUChange, cliflags.FlagRunMaxDefer, cliflags.FlagRunPartitions,
	cliflags.FlagRunUsers, cliflags.FlagRunNamePrefix, cliflags.FlagRunAuditRetention, cliflags.FlagRunCalibrate,
	cliflags.FlagRunHistorySource}

func runFlags() []cli.Flag {
	fs := append(cliflags.Cycle(),
		&cli.StringSliceFlag{Name: cliflags.FlagRunCompare, Value: cli.NewStringSlice("fifo"), EnvVars: cliflags.EnvOf(cliflags.FlagRunCompare),
			Usage: "policies also run on each snapshot, recorded for strata explain (none: --compare '')"},
		&cli.DurationFlag{Name: cliflags.FlagRunInterval, Value: time.Minute, EnvVars: cliflags.EnvOf(cliflags.FlagRunInterval),
			Usage: "time between cycles (SIGUSR1 starts one at once)"},
		&cli.IntFlag{Name: cliflags.FlagRunCycles, EnvVars: cliflags.EnvOf(cliflags.FlagRunCycles), Usage: "stop after N successful cycles (0: run until SIGTERM)"},
		&cli.DurationFlag{Name: cliflags.FlagRunStandbyPoll, Value: 5 * time.Second, EnvVars: cliflags.EnvOf(cliflags.FlagRunStandbyPoll),
			Usage: "how often a standby daemon tries to take the writer lock"},
		&cli.DurationFlag{Name: cliflags.FlagRunMaxBackoff, Value: 2 * time.Minute, EnvVars: cliflags.EnvOf(cliflags.FlagRunMaxBackoff),
			Usage: "longest pause after failed cycles (doubling from 1 s)"},
		&cli.StringFlag{Name: cliflags.FlagRunMetricsListen, Value: "127.0.0.1:9464", EnvVars: cliflags.EnvOf(cliflags.FlagRunMetricsListen),
			Usage: "address of the Prometheus /metrics endpoint ('' = off)"},
		&cli.DurationFlag{Name: cliflags.FlagRunAuditRetention, Value: 90 * 24 * time.Hour, EnvVars: cliflags.EnvOf(cliflags.FlagRunAuditRetention),
			Usage: "delete recorded cycles older than this, hourly (0 = keep all)"},
		&cli.DurationFlag{Name: flagSlurmFullReadEvery, EnvVars: []string{"STRATA_SLURM_FULL_READ_EVERY"},
			Usage: "read every job in full only this often; between, read job states and only the jobs that changed state (0 = every cycle, or automatic: --slurm-incremental-above; docs/slurm.md)"},
		&cli.IntFlag{Name: flagSlurmIncrementalAbove, Value: 2000, EnvVars: []string{"STRATA_SLURM_INCREMENTAL_ABOVE"},
			Usage: "on a queue of at least this many jobs, read incrementally with a full read every 5 minutes (a change that keeps a job's state is seen at the next full read); 0 = always full reads unless --slurm-full-read-every"},
	)
	return append(append(fs, cliflags.Database()...), cliflags.Slurm()...)
}

// runOptionsFrom reads the run flags of c and the [planner] section of f
// (nil: no configuration file).
func runOptionsFrom(c *cli.Context, f *config.File) (daemon.Options, error) {
	o := cliflags.CycleOptions(c, f)
	o.Compare = cliflags.SplitList(c.StringSlice(cliflags.FlagRunCompare))
	o.Interval = c.Duration(cliflags.FlagRunInterval)
	o.Cycles = c.Int(cliflags.FlagRunCycles)
	o.StandbyPoll = c.Duration(cliflags.FlagRunStandbyPoll)
	o.MaxBackoff = c.Duration(cliflags.FlagRunMaxBackoff)
	o.AuditRetention = c.Duration(cliflags.FlagRunAuditRetention)
	return o, o.Validate()
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the daemon: plan the queue every interval, write decisions (with --enforce), record every cycle",
		Description: "Each cycle: snapshot the queue through slurmrestd, plan (--policy), hold back writes that\n" +
			"break the limits (--max-rewrites-*, hysteresis, rewrite=no, held or running jobs), apply (shadow\n" +
			"mode unless --enforce) and record the cycle in Postgres for `strata explain`. One daemon per\n" +
			"cluster writes: others wait in standby on a Postgres advisory lock and take over when it dies.\n" +
			"SIGTERM/SIGINT stop cleanly (exit 0), SIGHUP reloads the configuration, SIGUSR1 runs a cycle now.\n\n" +
			"What --enforce writes, to pending jobs only: priority, the GPU request (tres_per_node or\n" +
			"tres_per_job, with the CPUs, memory and node count scaled with it), begin_time (deferred\n" +
			"jobs), partition (top-tier, jobs that list several), admin_comment (Strata's segment), and\n" +
			"time_limit only with [planner] bind-claims = true (off by default). Running jobs that opted in\n" +
			"(preempt=yes, requeueable) may get a checkpoint signal. docs/slurm.md lists each field.",
		Flags:  runFlags(),
		Action: runAction,
	}
}

// runAction wires the daemon: connections, metrics server, signals, loop.
func runAction(c *cli.Context) error {
	log := logger(c).With().Str("component", "run").Logger()
	opts, err := runOptionsFrom(c, config.FileFrom(c.Context))
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if err := checkSiteNames(c, config.FileFrom(c.Context), log); err != nil {
		return err
	}
	deps, err := daemonDeps(c, log)
	if err != nil {
		return err
	}
	deps.Reload = newReloader(c)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGUSR1)
	defer signal.Stop(sig)
	deps.Signals = sig

	m := daemon.NewMetrics()
	m.SetBuildInfo(version, commit)
	d, err := daemon.New(log, opts, deps, m)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	var ln net.Listener
	if addr := c.String(cliflags.FlagRunMetricsListen); addr != "" {
		// Listen before the loop starts, so a bad address fails at once.
		if ln, err = net.Listen("tcp", addr); err != nil {
			return exitError{code: 2, err: fmt.Errorf("--%s: %w", cliflags.FlagRunMetricsListen, err)}
		}
	}
	if err := d.RunWithMetrics(c.Context, ln); err != nil {
		return err
	}
	log.Info().Msg("stopped")
	return nil
}

// newReloader returns the SIGHUP handler of `strata run`: the
// configuration file re-read through the same flags and runOptionsFrom as
// at start-up, flags and environment variables still winning
// (config.Reloader).
func newReloader(c *cli.Context) func() (daemon.Options, error) {
	return config.Reloader(c, config.FileFrom(c.Context), reloadable, runOptionsFrom)
}

// daemonDeps builds the daemon's connections from the flags: slurmrestd
// always, Postgres when --database-url is set (its schema checked now).
func daemonDeps(c *cli.Context, log zerolog.Logger) (daemon.Deps, error) {
	scfg := cliflags.SlurmConfig(c)
	if err := scfg.Validate(); err != nil {
		return daemon.Deps{}, exitError{code: 2, err: fmt.Errorf("slurm connection: %w", err)}
	}
	deps := daemon.Deps{Connect: daemon.SlurmConnector(scfg, log), Now: time.Now}
	if every, above := c.Duration(flagSlurmFullReadEvery), c.Int(flagSlurmIncrementalAbove); every > 0 || above > 0 {
		connect := deps.Connect
		deps.Connect = func(ctx context.Context) (daemon.Cluster, error) {
			cl, err := connect(ctx)
			if sc, ok := cl.(*slurm.Client); ok {
				sc.SetJobsFullReadEvery(every)
				sc.SetJobsIncrementalAbove(above, autoFullReadEvery)
			}
			return cl, err
		}
	}
	if c.String(cliflags.FlagDatabaseURL) != "" {
		cfg, err := cliflags.DatabaseConfig(c)
		if err != nil {
			return deps, err
		}
		deps.Open = daemon.StoreOpener(cfg)
		if err := daemon.CheckSchemaAtStart(c.Context, deps.Open); err != nil {
			return deps, exitError{code: 2, err: err}
		}
	}
	return deps, nil
}
