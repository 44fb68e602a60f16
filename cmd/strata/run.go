package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
)

// reloadable are the run flags a SIGHUP re-reads from the configuration
// file (connections, listen address and lock name need a restart).
var reloadable = []string{flagRunPolicy, flagRunCompare, flagRunEnforce, flagRunInterval,
	flagRunMinRunPreempt, flagRunMaxPreemptDay, flagRunMaxDisturbed,
	flagRunMaxPerCycle, flagRunMaxPerJob, flagRunPrioHyst, flagRunMinGPUChange, flagRunMaxDefer, flagRunPartitions,
	flagRunUsers, flagRunNamePrefix, flagRunAuditRetention}

func runFlags() []cli.Flag {
	fs := append(cycleFlags(),
		&cli.StringSliceFlag{Name: flagRunCompare, Value: cli.NewStringSlice("fifo"), EnvVars: envOf(flagRunCompare),
			Usage: "policies also run on each snapshot, recorded for strata explain (none: --compare '')"},
		&cli.DurationFlag{Name: flagRunInterval, Value: time.Minute, EnvVars: envOf(flagRunInterval),
			Usage: "time between cycles (SIGUSR1 starts one at once)"},
		&cli.IntFlag{Name: flagRunCycles, EnvVars: envOf(flagRunCycles), Usage: "stop after N successful cycles (0: run until SIGTERM)"},
		&cli.DurationFlag{Name: flagRunStandbyPoll, Value: 5 * time.Second, EnvVars: envOf(flagRunStandbyPoll),
			Usage: "how often a standby daemon tries to take the writer lock"},
		&cli.DurationFlag{Name: flagRunMaxBackoff, Value: 2 * time.Minute, EnvVars: envOf(flagRunMaxBackoff),
			Usage: "longest pause after failed cycles (doubling from 1 s)"},
		&cli.StringFlag{Name: flagRunMetricsListen, Value: "127.0.0.1:9464", EnvVars: envOf(flagRunMetricsListen),
			Usage: "address of the Prometheus /metrics endpoint ('' = off)"},
		&cli.DurationFlag{Name: flagRunAuditRetention, Value: 90 * 24 * time.Hour, EnvVars: envOf(flagRunAuditRetention),
			Usage: "delete recorded cycles older than this, hourly (0 = keep all)"},
	)
	return append(append(fs, databaseFlags()...), slurmFlags()...)
}

// runOptionsFrom reads the run flags of c and the [planner] section of f
// (nil: no configuration file).
func runOptionsFrom(c *cli.Context, f *config.File) (daemon.Options, error) {
	o := cycleOptionsFrom(c, f)
	o.Compare = splitList(c.StringSlice(flagRunCompare))
	o.Interval = c.Duration(flagRunInterval)
	o.Cycles = c.Int(flagRunCycles)
	o.StandbyPoll = c.Duration(flagRunStandbyPoll)
	o.MaxBackoff = c.Duration(flagRunMaxBackoff)
	o.AuditRetention = c.Duration(flagRunAuditRetention)
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
			"SIGTERM/SIGINT stop cleanly (exit 0), SIGHUP reloads the configuration, SIGUSR1 runs a cycle now.",
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
	if addr := c.String(flagRunMetricsListen); addr != "" {
		// Listen before the loop starts, so a bad address fails at once.
		if ln, err = net.Listen("tcp", addr); err != nil {
			return exitError{code: 2, err: fmt.Errorf("--%s: %w", flagRunMetricsListen, err)}
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
	scfg := slurmConfig(c)
	if err := scfg.Validate(); err != nil {
		return daemon.Deps{}, exitError{code: 2, err: fmt.Errorf("slurm connection: %w", err)}
	}
	deps := daemon.Deps{Connect: daemon.SlurmConnector(scfg, log), Now: time.Now}
	if c.String(flagDatabaseURL) != "" {
		cfg, err := databaseConfig(c)
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
