package main

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/planner/power"
)

// Flag names of `strata report power` (besides the report output flags).
const (
	flagPowerReplay      = "replay"
	flagPowerPreset      = "preset"
	flagPowerRule        = "rule"
	flagPowerForecast    = "forecast"
	flagPowerStep        = "step"
	flagPowerBuffer      = "buffer"
	flagPowerHorizon     = "horizon"
	flagPowerKeep        = "keep"
	flagPowerMinDecrease = "min-decrease"
	flagPowerSuspend     = "suspend-time"
	flagPowerResume      = "resume-timeout"
	flagPowerIdleWatts   = "idle-watts"
	flagPowerHistory     = "history"
	flagPowerSeenWithin  = "seen-within"
	flagPowerGPUsPerNode = "gpus-per-node"
	flagPowerTotalNodes  = "total-nodes"
	flagPowerVC          = "vc"
	flagPowerIntervals   = "intervals"
	flagPowerWarmup      = "warmup"
	flagPowerApply       = "apply"
	flagPowerApplyMax    = "apply-max"
	flagPowerDryRun      = "dry-run"
)

// powerCommand is `strata report power`: advice from the collector's
// records, or a replay of a node series (--replay). What it does is in
// package report and planner/power.
func powerCommand(open openSourceFunc) *cli.Command {
	def := power.DefaultConfig()
	return &cli.Command{
		Name:  "power",
		Usage: "which idle nodes could be powered down now, and the energy it saves (advisory; Helios CES)",
		Description: "Reads which nodes held a job in each interval of --history (the collector's GPU\n" +
			"assignments), forecasts the busy nodes, keeps them plus --buffer spare nodes on, and\n" +
			"lists the idle nodes to power down (idle for --suspend-time, longest idle first) or to\n" +
			"wake. Nothing is changed unless --apply: then the nodes are powered up and down through\n" +
			"slurmrestd (state POWER_UP / POWER_DOWN; never a node a job holds; at most --apply-max).\n" +
			"--replay FILE runs the advisor over a node series (busy_nodes,total_nodes; Helios\n" +
			"per-VC GPUs; Venus throughput) and prints utilization, energy saved, power-state\n" +
			"changes and shortfalls. Example: strata report power --replay philly_node_sequence.csv",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: flagPowerReplay, Usage: "replay this node-series CSV instead of reading the database"},
			&cli.StringFlag{Name: flagReportStart, Aliases: []string{"S"}, Usage: "with --replay: first interval (default: the series' start)"},
			&cli.StringFlag{Name: flagReportEnd, Aliases: []string{"E"}, Usage: "with --replay: end of the replay (default: the series' end)"},
			&cli.BoolFlag{Name: flagPowerIntervals, Usage: "with --replay: one row per interval instead of the summary"},
			&cli.DurationFlag{Name: flagPowerWarmup, Value: 24 * time.Hour,
				Usage: "with --replay and -S: replay this much before -S first, left out of the figures"},
			&cli.IntFlag{Name: flagPowerGPUsPerNode, Value: 8, Usage: "with --replay of a GPU series: GPUs per node"},
			&cli.IntFlag{Name: flagPowerTotalNodes, Usage: "with --replay of a throughput series: nodes in the cluster (default: the peak)"},
			&cli.StringSliceFlag{Name: flagPowerVC, Usage: "with --replay of a per-VC series: only these virtual clusters"},
			&cli.StringFlag{Name: flagPowerPreset, Usage: "start from Helios' published CES parameters: " + strings.Join(power.HeliosPresets(), ", ")},
			&cli.StringFlag{Name: flagPowerRule, Usage: "margin (busy forecast peak + buffer) or helios (the CES rule); default margin, helios with --preset"},
			&cli.StringFlag{Name: flagPowerForecast, Usage: "recent-max[:N] (default for margin, N=36 intervals), seasonal[:N] (default for helios, N=144), oracle (--replay only)"},
			&cli.DurationFlag{Name: flagPowerStep, Value: def.Step, Usage: "interval length"},
			&cli.IntFlag{Name: flagPowerBuffer, Usage: "spare idle nodes kept on (default 5; a preset's own)"},
			&cli.IntFlag{Name: flagPowerHorizon, Usage: "intervals of forecast the margin rule covers (default 18)"},
			&cli.IntFlag{Name: flagPowerKeep, Usage: "intervals without power-down after a wake-up (default 12; a preset's own)"},
			&cli.IntFlag{Name: flagPowerMinDecrease, Usage: "fewest nodes worth powering down at once (default 5; a preset's own)"},
			&cli.DurationFlag{Name: flagPowerSuspend, Value: def.SuspendTime, Usage: "idle time before a node may be powered down (Slurm's SuspendTime)"},
			&cli.DurationFlag{Name: flagPowerResume, Value: def.ResumeTimeout, Usage: "time a woken node takes to serve jobs (at most Slurm's ResumeTimeout)"},
			&cli.Float64Flag{Name: flagPowerIdleWatts, Value: def.IdleWatts, EnvVars: []string{"STRATA_IDLE_NODE_WATTS"},
				Usage: "power of an idle, powered node (W; the default is an assumption for 8-GPU nodes)"},
			&cli.DurationFlag{Name: flagPowerHistory, Value: 48 * time.Hour, Usage: "history read from the database"},
			&cli.DurationFlag{Name: flagPowerSeenWithin, Value: 5 * time.Minute, Usage: "a node without a sample for longer counts as off"},
			&cli.BoolFlag{Name: flagReportParsable, Aliases: []string{"P"}, Usage: "'|'-separated output with a header"},
			&cli.BoolFlag{Name: flagReportTrailing, Aliases: []string{"p"}, Usage: "like -P with a '|' at the end of each line"},
			&cli.BoolFlag{Name: flagReportNoHeader, Aliases: []string{"n"}, Usage: "no header line"},
			&cli.StringFlag{Name: flagReportFormat, Aliases: []string{"o"}, Usage: "fields to print: Field[%[-]width],... (case-insensitive)"},
			&cli.BoolFlag{Name: flagReportJSON, Usage: "print JSON"},
			&cli.BoolFlag{Name: flagReportCSV, Usage: "print CSV"},
			&cli.StringFlag{Name: flagReportTZ, Value: "Local", EnvVars: []string{"STRATA_TIMEZONE"}, Usage: "time zone for times (IANA name, Local or UTC)"},
			&cli.BoolFlag{Name: flagPowerApply, Usage: "apply the advice through slurmrestd (POWER_DOWN / POWER_UP; opt-in)"},
			&cli.IntFlag{Name: flagPowerApplyMax, Value: 4, Usage: "with --apply: at most this many nodes changed per run"},
			&cli.BoolFlag{Name: flagPowerDryRun, Usage: "with --apply: check the changes against Slurm, write nothing"},
		}, append(reportDBFlags(), cliflags.Slurm()...)...),
		Action: func(c *cli.Context) error {
			args := report.PowerArgs{Preset: c.String(flagPowerPreset), Rule: c.String(flagPowerRule),
				Forecast: c.String(flagPowerForecast), Step: c.Duration(flagPowerStep),
				SuspendTime: c.Duration(flagPowerSuspend), ResumeTimeout: c.Duration(flagPowerResume),
				IdleWatts: c.Float64(flagPowerIdleWatts), Buffer: setInt(c, flagPowerBuffer),
				Horizon: setInt(c, flagPowerHorizon), Keep: setInt(c, flagPowerKeep), MinDecrease: setInt(c, flagPowerMinDecrease)}
			mode := report.OutputMode{Parsable: c.Bool(flagReportParsable), Trailing: c.Bool(flagReportTrailing),
				NoHeader: c.Bool(flagReportNoHeader), JSON: c.Bool(flagReportJSON), Format: c.String(flagReportFormat),
				CSV: c.Bool(flagReportCSV)}
			now := time.Now()
			file := c.String(flagPowerReplay)
			loc, from, to, err := report.PowerWindow(c.String(flagReportStart), c.String(flagReportEnd), c.String(flagReportTZ),
				now, file != "")
			if err != nil {
				return err
			}
			if file != "" {
				return report.PowerReplayFile(c.App.Writer, file, report.ReplayOptions{Args: args, From: from, To: to,
					Warmup: c.Duration(flagPowerWarmup), Intervals: c.Bool(flagPowerIntervals), Loc: loc, Mode: mode,
					Read: power.ReadOptions{GPUsPerNode: c.Int(flagPowerGPUsPerNode), TotalNodes: c.Int(flagPowerTotalNodes),
						VC: c.StringSlice(flagPowerVC)}})
			}
			o := report.PowerOptions{Args: args, Now: now, History: c.Duration(flagPowerHistory),
				SeenWithin: c.Duration(flagPowerSeenWithin), Loc: loc, Mode: mode,
				ApplyMax: c.Int(flagPowerApplyMax), DryRun: c.Bool(flagPowerDryRun)}
			if c.Bool(flagPowerApply) {
				o.Apply = func() (report.PowerApplier, error) { return cliflags.ConnectSlurm(c) }
			}
			return report.Power(c.Context, c.App.Writer, open.opener(c), o)
		},
	}
}

// setInt is the value of an int flag the user gave, nil when not given.
func setInt(c *cli.Context, name string) *int {
	if !c.IsSet(name) {
		return nil
	}
	v := c.Int(name)
	return &v
}
