package main

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm/guard"
)

// Flag names of the plan cycle, shared by `strata run` and `strata plan`
// (config keys: the same names at top level, e.g. `enforce = true`,
// `max-rewrites-per-cycle = 20`), and of `strata run` alone.
const (
	flagRunPolicy         = "policy"
	flagRunEnforce        = "enforce"
	flagRunMaxPerCycle    = "max-rewrites-per-cycle"
	flagRunMaxPerJob      = "max-rewrites-per-job"
	flagRunPrioHyst       = "priority-hysteresis"
	flagRunMinGPUChange   = "min-gpu-change"
	flagRunMaxDefer       = "max-defer"
	flagRunMinRunPreempt  = "min-run-before-preempt"
	flagRunMaxPreemptDay  = "max-preempt-per-day"
	flagRunMaxDisturbed   = "max-disturbed-gpu-hours"
	flagRunPartitions     = "only-partitions"
	flagRunUsers          = "only-users"
	flagRunNamePrefix     = "only-job-name-prefix"
	flagRunLockName       = "lock-name"
	flagRunCompare        = "compare"
	flagRunInterval       = "interval"
	flagRunCycles         = "cycles"
	flagRunStandbyPoll    = "standby-poll"
	flagRunMaxBackoff     = "max-backoff"
	flagRunMetricsListen  = "metrics-listen"
	flagRunAuditRetention = "audit-retention"
)

func envOf(n string) []string {
	return []string{"STRATA_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))}
}

// cycleFlags are the flags of one plan cycle: policy, mode, write limits
// (the guards) and scope, shared by `strata run` and `strata plan`.
func cycleFlags() []cli.Flag {
	g := guard.Defaults()
	return []cli.Flag{
		&cli.StringFlag{Name: flagRunPolicy, Value: "smd", EnvVars: envOf(flagRunPolicy),
			Usage: "planning policy: " + strings.Join(planner.PolicyNames(), ", ")},
		&cli.BoolFlag{Name: flagRunEnforce, EnvVars: envOf(flagRunEnforce),
			Usage: "write decisions to Slurm (needs --database-url: audit trail and one-writer lock); default: shadow mode"},
		&cli.IntFlag{Name: flagRunMaxPerCycle, Value: g.MaxPerCycle, EnvVars: envOf(flagRunMaxPerCycle),
			Usage: "most jobs rewritten per cycle (best-ranked first)"},
		&cli.IntFlag{Name: flagRunMaxPerJob, Value: g.MaxPerJob, EnvVars: envOf(flagRunMaxPerJob),
			Usage: "most rewrites of one job over its life"},
		&cli.Int64Flag{Name: flagRunPrioHyst, Value: g.PriorityHysteresis, EnvVars: envOf(flagRunPrioHyst),
			Usage: "priority changes smaller than this are not written"},
		&cli.IntFlag{Name: flagRunMinGPUChange, Value: g.MinGPUChange, EnvVars: envOf(flagRunMinGPUChange),
			Usage: "GPU count changes smaller than this are not written"},
		&cli.DurationFlag{Name: flagRunMaxDefer, Value: g.MaxDefer, EnvVars: envOf(flagRunMaxDefer),
			Usage: "farthest ahead a begin time is written for a deferred job (refreshed while still wanted; 0 = the plan's start)"},
		&cli.DurationFlag{Name: flagRunMinRunPreempt, Value: g.MinRunBeforePreempt, EnvVars: envOf(flagRunMinRunPreempt),
			Usage: "least time a job runs after its (re)start before it may be preempted (jobs with preempt=yes only)"},
		&cli.IntFlag{Name: flagRunMaxPreemptDay, Value: g.MaxPreemptPerDay, EnvVars: envOf(flagRunMaxPreemptDay),
			Usage: "most checkpoint signals one job gets in 24 hours (0: no preemption)"},
		&cli.Float64Flag{Name: flagRunMaxDisturbed, Value: g.MaxDisturbedGPUHours, EnvVars: envOf(flagRunMaxDisturbed),
			Usage: "most running GPU-hours one cycle's preemptions may disturb"},
		&cli.StringSliceFlag{Name: flagRunPartitions, EnvVars: envOf(flagRunPartitions),
			Usage: "plan only pending jobs of these partitions (default: all)"},
		&cli.StringSliceFlag{Name: flagRunUsers, EnvVars: envOf(flagRunUsers),
			Usage: "plan only pending jobs of these users (pilot roll-outs; default: all)"},
		&cli.StringFlag{Name: flagRunNamePrefix, EnvVars: envOf(flagRunNamePrefix),
			Usage: "plan only pending jobs whose name starts with this prefix"},
		&cli.StringFlag{Name: flagRunLockName, EnvVars: envOf(flagRunLockName),
			Usage: "name of the one-writer lock (default: strata-run/<Slurm cluster name>)"},
	}
}

// cycleOptionsFrom reads the cycle flags and the configuration's [planner]
// section (f may be nil: the planner's defaults with the default caps) into
// daemon options; the run-only fields keep values that let one cycle run
// (strata plan).
func cycleOptionsFrom(c *cli.Context, f *config.File) daemon.Options {
	g := guard.Defaults()
	g.MaxPerCycle, g.MaxPerJob = c.Int(flagRunMaxPerCycle), c.Int(flagRunMaxPerJob)
	g.PriorityHysteresis, g.MinGPUChange = c.Int64(flagRunPrioHyst), c.Int(flagRunMinGPUChange)
	g.MaxDefer = c.Duration(flagRunMaxDefer)
	g.MinRunBeforePreempt, g.MaxPreemptPerDay = c.Duration(flagRunMinRunPreempt), c.Int(flagRunMaxPreemptDay)
	g.MaxDisturbedGPUHours = c.Float64(flagRunMaxDisturbed)
	var sec config.Planner
	if f != nil {
		sec = f.Planner
	}
	po := sec.Options()
	// The plan proposes what the guard lets through.
	po.MinRunBeforePreempt, po.MaxDisturbedGPUHours = g.MinRunBeforePreempt, g.MaxDisturbedGPUHours
	po.MaxPreemptPerDay = g.MaxPreemptPerDay
	if po.MaxPreemptPerDay == 0 {
		po.MaxPreemptPerDay = -1 // the planner's 0 is its default; the flag's 0 means none
	}
	return daemon.Options{
		Planner:  po,
		Settings: sec.Settings(),
		Policy:   c.String(flagRunPolicy),
		Enforce:  c.Bool(flagRunEnforce),
		Guard:    g,
		Scope: daemon.Scope{Partitions: splitList(c.StringSlice(flagRunPartitions)),
			Users: splitList(c.StringSlice(flagRunUsers)), NamePrefix: c.String(flagRunNamePrefix)},
		LockName:    c.String(flagRunLockName),
		Interval:    time.Minute,
		Cycles:      1,
		StandbyPoll: 5 * time.Second,
		MaxBackoff:  time.Minute,
	}
}

// splitList flattens "a,b" entries and drops empty ones.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
