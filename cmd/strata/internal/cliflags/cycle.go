package cliflags

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Flag names of the plan cycle, shared by `strata run` and `strata plan`
// (config keys: the same names at top level, e.g. `enforce = true`,
// `max-rewrites-per-cycle = 20`), and of `strata run` alone.
const (
	FlagRunPolicy         = "policy"
	FlagRunEnforce        = "enforce"
	FlagRunMaxPerCycle    = "max-rewrites-per-cycle"
	FlagRunMaxPerJob      = "max-rewrites-per-job"
	FlagRunMaxWritesJob   = "max-writes-per-job"
	FlagRunMaxFailedJob   = "max-failed-writes"
	FlagRunPrioHyst       = "priority-hysteresis"
	FlagRunMinGPUChange   = "min-gpu-change"
	FlagRunMaxDefer       = "max-defer"
	FlagRunMinRunPreempt  = "min-run-before-preempt"
	FlagRunMaxPreemptDay  = "max-preempt-per-day"
	FlagRunMaxDisturbed   = "max-disturbed-gpu-hours"
	FlagRunPartitions     = "only-partitions"
	FlagRunUsers          = "only-users"
	FlagRunNamePrefix     = "only-job-name-prefix"
	FlagRunLockName       = "lock-name"
	FlagRunCompare        = "compare"
	FlagRunInterval       = "interval"
	FlagRunCycles         = "cycles"
	FlagRunStandbyPoll    = "standby-poll"
	FlagRunMaxBackoff     = "max-backoff"
	FlagRunMetricsListen  = "metrics-listen"
	FlagRunAuditRetention = "audit-retention"
	FlagRunCalibrate      = "calibrate"
	FlagRunHistorySource  = "history-source"
)

func EnvOf(n string) []string {
	return []string{"STRATA_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))}
}

// Cycle are the flags of one plan cycle: policy, mode, write limits
// (the guards) and scope, shared by `strata run` and `strata plan`.
func Cycle() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: FlagRunPolicy, Value: "smd", EnvVars: EnvOf(FlagRunPolicy),
			Usage: "planning policy: " + strings.Join(planner.PolicyNames(), ", ")},
		&cli.BoolFlag{Name: FlagRunEnforce, EnvVars: EnvOf(FlagRunEnforce),
			Usage: "write decisions to Slurm (needs --database-url: audit trail and one-writer lock); default: shadow mode"},
	}, append(WriteLimits(), []cli.Flag{
		&cli.StringSliceFlag{Name: FlagRunPartitions, EnvVars: EnvOf(FlagRunPartitions),
			Usage: "plan only pending jobs of these partitions (default: all)"},
		&cli.StringSliceFlag{Name: FlagRunUsers, EnvVars: EnvOf(FlagRunUsers),
			Usage: "plan only pending jobs of these users (pilot roll-outs; default: all)"},
		&cli.StringFlag{Name: FlagRunNamePrefix, EnvVars: EnvOf(FlagRunNamePrefix),
			Usage: "plan only pending jobs whose name starts with this prefix"},
		&cli.StringFlag{Name: FlagRunLockName, EnvVars: EnvOf(FlagRunLockName),
			Usage: "name of the one-writer lock (default: strata-run/<Slurm cluster name>)"},
		&cli.BoolFlag{Name: FlagRunCalibrate, Value: true, EnvVars: EnvOf(FlagRunCalibrate),
			Usage: "correct modelled run times per (model, GPU type) and the energy term's GPU power by what finished jobs measured (needs --database-url; strata report calibration shows the factors)"},
		&cli.StringFlag{Name: FlagRunHistorySource, Value: daemon.HistoryAuto, EnvVars: EnvOf(FlagRunHistorySource),
			Usage: "where unhinted jobs' durations are learned from: auto (slurmdbd when slurmrestd serves /slurmdb, " +
				"else strata), slurmdbd (its job records through slurmrestd), strata (the collector's records in Postgres)"},
	}...)...)
}

// WriteLimits are the flags of the guards' write limits (decide.Options),
// shared by `strata run`, `strata plan` and `strata simulate` (config keys:
// the same names at top level), so that a simulation of a site runs under
// the limits its daemon writes through.
func WriteLimits() []cli.Flag {
	g := decide.Defaults()
	return []cli.Flag{
		&cli.IntFlag{Name: FlagRunMaxPerCycle, Value: g.MaxPerCycle, EnvVars: EnvOf(FlagRunMaxPerCycle),
			Usage: "most jobs rewritten per cycle (best-ranked first)"},
		&cli.IntFlag{Name: FlagRunMaxPerJob, Value: g.MaxPerJob, EnvVars: EnvOf(FlagRunMaxPerJob),
			Usage: "most changes of one job's GPU request over its life"},
		&cli.IntFlag{Name: FlagRunMaxWritesJob, Value: g.MaxWritesPerJob, EnvVars: EnvOf(FlagRunMaxWritesJob),
			Usage: "most writes of any kind (priority, begin time, GPUs, time limit) to one job over its life, counted in the audit trail and the job's admin comment (0: no cap)"},
		&cli.IntFlag{Name: FlagRunMaxFailedJob, Value: g.MaxFailedWrites, EnvVars: EnvOf(FlagRunMaxFailedJob),
			Usage: "after this many failed writes to one job (refused, or read back unchanged) Strata stops writing to it (0: no cap)"},
		&cli.Int64Flag{Name: FlagRunPrioHyst, Value: g.PriorityHysteresis, EnvVars: EnvOf(FlagRunPrioHyst),
			Usage: "priority changes smaller than this are not written"},
		&cli.IntFlag{Name: FlagRunMinGPUChange, Value: g.MinGPUChange, EnvVars: EnvOf(FlagRunMinGPUChange),
			Usage: "GPU count changes smaller than this are not written"},
		&cli.DurationFlag{Name: FlagRunMaxDefer, Value: g.MaxDefer, EnvVars: EnvOf(FlagRunMaxDefer),
			Usage: "farthest ahead a begin time is written for a deferred job (refreshed while still wanted; 0 = the plan's start)"},
		&cli.DurationFlag{Name: FlagRunMinRunPreempt, Value: g.MinRunBeforePreempt, EnvVars: EnvOf(FlagRunMinRunPreempt),
			Usage: "least time a job runs after its (re)start before it may be preempted (jobs with preempt=yes only)"},
		&cli.IntFlag{Name: FlagRunMaxPreemptDay, Value: g.MaxPreemptPerDay, EnvVars: EnvOf(FlagRunMaxPreemptDay),
			Usage: "most checkpoint signals one job gets in 24 hours (0: no preemption)"},
		&cli.Float64Flag{Name: FlagRunMaxDisturbed, Value: g.MaxDisturbedGPUHours, EnvVars: EnvOf(FlagRunMaxDisturbed),
			Usage: "most running GPU-hours one cycle's preemptions may disturb"},
	}
}

// WriteLimitOptions reads the WriteLimits flags.
func WriteLimitOptions(c *cli.Context) decide.Options {
	g := decide.Defaults()
	g.MaxPerCycle, g.MaxPerJob = c.Int(FlagRunMaxPerCycle), c.Int(FlagRunMaxPerJob)
	g.MaxWritesPerJob, g.MaxFailedWrites = c.Int(FlagRunMaxWritesJob), c.Int(FlagRunMaxFailedJob)
	g.PriorityHysteresis, g.MinGPUChange = c.Int64(FlagRunPrioHyst), c.Int(FlagRunMinGPUChange)
	g.MaxDefer = c.Duration(FlagRunMaxDefer)
	g.MinRunBeforePreempt, g.MaxPreemptPerDay = c.Duration(FlagRunMinRunPreempt), c.Int(FlagRunMaxPreemptDay)
	g.MaxDisturbedGPUHours = c.Float64(FlagRunMaxDisturbed)
	return g
}

// CycleOptions reads the cycle flags and the configuration's [planner]
// section (f may be nil: the planner's defaults with the default caps) into
// daemon options; the run-only fields keep values that let one cycle run
// (strata plan).
func CycleOptions(c *cli.Context, f *config.File) daemon.Options {
	g := WriteLimitOptions(c)
	var sec config.Planner
	if f != nil {
		sec = f.Planner
	}
	po := decide.PlannerOptions(config.PlannerOptions(f), g) // the plan proposes what the guards let through
	return daemon.Options{
		Planner:  po,
		Settings: sec.Settings(),
		Policy:   c.String(FlagRunPolicy),
		Enforce:  c.Bool(FlagRunEnforce),
		Guard:    g,
		Scope: daemon.Scope{Partitions: SplitList(c.StringSlice(FlagRunPartitions)),
			Users: SplitList(c.StringSlice(FlagRunUsers)), NamePrefix: c.String(FlagRunNamePrefix)},
		LockName:      c.String(FlagRunLockName),
		Calibrate:     c.Bool(FlagRunCalibrate),
		HistorySource: c.String(FlagRunHistorySource),
		Interval:      time.Minute,
		Cycles:        1,
		StandbyPoll:   5 * time.Second,
		MaxBackoff:    time.Minute,
	}
}

// SplitList flattens "a,b" entries and drops empty ones.
func SplitList(vs []string) []string {
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
