package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

// Flag names of `strata run` (config keys: the same names at top level,
// e.g. `enforce = true`, `max-rewrites-per-cycle = 20`).
const (
	flagRunPolicy         = "policy"
	flagRunCompare        = "compare"
	flagRunEnforce        = "enforce"
	flagRunInterval       = "interval"
	flagRunCycles         = "cycles"
	flagRunMaxPerCycle    = "max-rewrites-per-cycle"
	flagRunMaxPerJob      = "max-rewrites-per-job"
	flagRunPrioHyst       = "priority-hysteresis"
	flagRunMinGPUChange   = "min-gpu-change"
	flagRunPartitions     = "only-partitions"
	flagRunUsers          = "only-users"
	flagRunNamePrefix     = "only-job-name-prefix"
	flagRunLockName       = "lock-name"
	flagRunStandbyPoll    = "standby-poll"
	flagRunMaxBackoff     = "max-backoff"
	flagRunMetricsListen  = "metrics-listen"
	flagRunAuditRetention = "audit-retention"
)

// reloadable are the run flags a SIGHUP re-reads from the configuration
// file (connections, listen address and lock name need a restart).
var reloadable = []string{flagRunPolicy, flagRunCompare, flagRunEnforce, flagRunInterval,
	flagRunMaxPerCycle, flagRunMaxPerJob, flagRunPrioHyst, flagRunMinGPUChange, flagRunPartitions,
	flagRunUsers, flagRunNamePrefix, flagRunAuditRetention}

func runFlags() []cli.Flag {
	env := func(n string) []string { return []string{"STRATA_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))} }
	fs := []cli.Flag{
		&cli.StringFlag{Name: flagRunPolicy, Value: "smd", EnvVars: env(flagRunPolicy),
			Usage: "planning policy: " + strings.Join(planner.PolicyNames(), ", ")},
		&cli.StringSliceFlag{Name: flagRunCompare, Value: cli.NewStringSlice("fifo"), EnvVars: env(flagRunCompare),
			Usage: "policies also run on each snapshot, recorded for strata explain (none: --compare '')"},
		&cli.BoolFlag{Name: flagRunEnforce, EnvVars: env(flagRunEnforce),
			Usage: "write decisions to Slurm (default: shadow mode, compute and record only)"},
		&cli.DurationFlag{Name: flagRunInterval, Value: time.Minute, EnvVars: env(flagRunInterval),
			Usage: "time between cycles (SIGUSR1 starts one at once)"},
		&cli.IntFlag{Name: flagRunCycles, EnvVars: env(flagRunCycles), Usage: "stop after N successful cycles (0: run until SIGTERM)"},
		&cli.IntFlag{Name: flagRunMaxPerCycle, Value: 20, EnvVars: env(flagRunMaxPerCycle),
			Usage: "most jobs rewritten per cycle (best-ranked first)"},
		&cli.IntFlag{Name: flagRunMaxPerJob, Value: 3, EnvVars: env(flagRunMaxPerJob),
			Usage: "most rewrites of one job over its life"},
		&cli.Int64Flag{Name: flagRunPrioHyst, Value: 100, EnvVars: env(flagRunPrioHyst),
			Usage: "priority changes smaller than this are not written"},
		&cli.IntFlag{Name: flagRunMinGPUChange, Value: 1, EnvVars: env(flagRunMinGPUChange),
			Usage: "GPU count changes smaller than this are not written"},
		&cli.StringSliceFlag{Name: flagRunPartitions, EnvVars: env(flagRunPartitions),
			Usage: "plan only pending jobs of these partitions (default: all)"},
		&cli.StringSliceFlag{Name: flagRunUsers, EnvVars: env(flagRunUsers),
			Usage: "plan only pending jobs of these users (pilot roll-outs; default: all)"},
		&cli.StringFlag{Name: flagRunNamePrefix, EnvVars: env(flagRunNamePrefix),
			Usage: "plan only pending jobs whose name starts with this prefix"},
		&cli.StringFlag{Name: flagRunLockName, EnvVars: env(flagRunLockName),
			Usage: "name of the one-writer lock (default: strata-run/<Slurm cluster name>)"},
		&cli.DurationFlag{Name: flagRunStandbyPoll, Value: 5 * time.Second, EnvVars: env(flagRunStandbyPoll),
			Usage: "how often a standby daemon tries to take the writer lock"},
		&cli.DurationFlag{Name: flagRunMaxBackoff, Value: 2 * time.Minute, EnvVars: env(flagRunMaxBackoff),
			Usage: "longest pause after failed cycles (doubling from 1 s)"},
		&cli.StringFlag{Name: flagRunMetricsListen, Value: "127.0.0.1:9464", EnvVars: env(flagRunMetricsListen),
			Usage: "address of the Prometheus /metrics endpoint ('' = off)"},
		&cli.DurationFlag{Name: flagRunAuditRetention, Value: 90 * 24 * time.Hour, EnvVars: env(flagRunAuditRetention),
			Usage: "delete recorded cycles older than this, hourly (0 = keep all)"},
	}
	return append(append(fs, databaseFlags()...), slurmFlags()...)
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the daemon: plan the queue every interval, write decisions (with --enforce), record every cycle",
		Description: "Each cycle: snapshot the queue through slurmrestd, plan (--policy), hold back writes that\n" +
			"break the limits (--max-rewrites-*, hysteresis, rewrite=no, running jobs), apply (shadow mode\n" +
			"unless --enforce) and record the cycle in Postgres for `strata explain`. One daemon per cluster\n" +
			"writes: others wait in standby on a Postgres advisory lock and take over when it dies.\n" +
			"SIGTERM/SIGINT stop cleanly (exit 0), SIGHUP reloads the configuration, SIGUSR1 runs a cycle now.",
		Flags:  runFlags(),
		Action: runAction,
	}
}

// runAction wires the daemon: connections, metrics server, signals, loop.
func runAction(c *cli.Context) error {
	log := logger(c).With().Str("component", "run").Logger()
	opts, err := runOptionsFrom(c)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	scfg := slurmConfig(c)
	if err := scfg.Validate(); err != nil {
		return exitError{code: 2, err: fmt.Errorf("slurm connection: %w", err)}
	}
	deps := daemonDeps{connect: slurmConnector(scfg, log), now: time.Now}
	if c.String(flagDatabaseURL) != "" {
		cfg, err := databaseConfig(c)
		if err != nil {
			return err
		}
		deps.open = storeOpener(cfg)
		if err := checkStoreAtStart(c.Context, deps.open); err != nil {
			return err
		}
	}
	deps.reload = newReloader(c)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGUSR1)
	defer signal.Stop(sig)
	deps.signals = sig

	m := newDaemonMetrics()
	d, err := newDaemon(log, opts, deps, m)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	g, ctx := errgroup.WithContext(c.Context)
	if opts.MetricsListen != "" {
		// Listen before the loop starts, so a bad address fails at once.
		ln, err := net.Listen("tcp", opts.MetricsListen)
		if err != nil {
			return exitError{code: 2, err: fmt.Errorf("--%s: %w", flagRunMetricsListen, err)}
		}
		g.Go(func() error { return serveMetrics(ctx, ln, m, log) })
	}
	g.Go(func() error {
		defer d.closeStore()
		err := d.run(ctx)
		// The loop ended (SIGTERM or --cycles): stop the metrics server.
		return errors.Join(err, errLoopDone)
	})
	if err := g.Wait(); err != nil && !errors.Is(err, errLoopDone) {
		return err
	}
	log.Info().Msg("stopped")
	return nil
}

// errLoopDone ends the errgroup (and so the metrics server) when the loop
// returns normally.
var errLoopDone = errors.New("loop done")

// storeOpener opens Postgres and refuses a schema that is not current.
func storeOpener(cfg db.Config) func(ctx context.Context) (auditStore, error) {
	return func(ctx context.Context) (auditStore, error) {
		st, err := db.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if err := st.CheckSchema(ctx); err != nil {
			st.Close()
			return nil, err
		}
		return storeAdapter{st}, nil
	}
}

// checkStoreAtStart refuses to start on a schema that is behind (or ahead);
// an unreachable database only delays the first cycle.
func checkStoreAtStart(ctx context.Context, open func(context.Context) (auditStore, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := open(ctx)
	switch {
	case errors.Is(err, db.ErrSchemaBehind), errors.Is(err, db.ErrSchemaAhead):
		return exitError{code: 2, err: fmt.Errorf("database: %w", err)}
	case err == nil:
		if sa, ok := st.(storeAdapter); ok {
			sa.Close()
		}
	}
	return nil
}

// closeStore closes the database pool, if one was opened.
func (d *daemon) closeStore() {
	if sa, ok := d.st.(storeAdapter); ok {
		sa.Close()
	}
}
