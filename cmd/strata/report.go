package main

import (
	"errors"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/db"
)

// openSourceFunc opens the report source for a command; the returned
// function releases it. Tests pass one that returns fixed rows.
type openSourceFunc func(c *cli.Context) (report.Source, func(), error)

// opener binds open to the running command.
func (open openSourceFunc) opener(c *cli.Context) report.Opener {
	return func() (report.Source, func(), error) { return open(c) }
}

// Flag names of the report commands.
const (
	flagReportStart     = "starttime"
	flagReportEnd       = "endtime"
	flagReportBy        = "by"
	flagReportUser      = "user"
	flagReportAccount   = "account"
	flagReportPartition = "partition"
	flagReportJobs      = "jobs"
	flagReportClusters  = "clusters"
	flagReportState     = "state"
	flagReportParsable  = "parsable2"
	flagReportTrailing  = "parsable"
	flagReportNoHeader  = "noheader"
	flagReportFormat    = "format"
	flagReportJSON      = "json"
	flagReportCSV       = "csv"
	flagReportCost      = "cost-per-kwh"
	flagReportCurrency  = "currency"
	flagReportCO2       = "co2-kg-per-kwh"
	flagReportTZ        = "timezone"
	flagReportIdle      = "idle-below"
	flagReportUnits     = "units"
	flagReportTime      = "time-format"
)

func reportCommand() *cli.Command { return reportCommandWith(openDBReportSource) }

func reportCommandWith(open openSourceFunc) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "GPU energy, usage and planner-decision reports (sacct-like output)",
		Description: "Reports read the per-job hourly rollups in the database (never raw samples).\n" +
			"Jobs running across -S or -E are pro-rated to the part inside the window.\n" +
			"Example: strata report energy --by user -S now-7days -E now",
		Subcommands: []*cli.Command{
			{Name: "energy", Usage: "GPU-hours, energy (kWh, J), mean utilization, idle-GPU energy, cost, CO2",
				Flags: append(append(reportFlags("user"), stateFlag()), energyFlags()...),
				Action: withQuery(func(c *cli.Context, q report.Query) error {
					return report.Energy(c.Context, c.App.Writer, open.opener(c), q, energyFactors(c), logger(c))
				})},
			{Name: "usage", Usage: "GPU-hours, queueing and job completion time by user/account/partition",
				Flags: append(reportFlags("user"), stateFlag()),
				Action: withQuery(func(c *cli.Context, q report.Query) error {
					return report.Usage(c.Context, c.App.Writer, open.opener(c), q)
				})},
			{Name: "decisions", Usage: "what the planner changed, by action and reason",
				Flags: reportFlags(""),
				Action: withQuery(func(c *cli.Context, q report.Query) error {
					return report.Decisions(c.Context, c.App.Writer, open.opener(c), q)
				})},
			{Name: "predictions", Usage: report.PredictionsUsage, Description: report.PredictionsDescription,
				Flags: append(reportFlags(""), &cli.StringFlag{Name: flagReportBy, Value: "source",
					Usage: "group by " + strings.Join(report.PredictionBy, ", ")}),
				Action: withQuery(func(c *cli.Context, q report.Query) error {
					if report.IsFormatHelp(q.Mode.Format) {
						return report.PredictionFieldHelp(c.App.Writer, c.String(flagReportBy))
					}
					return withStore(true, func(c *cli.Context, st *db.Store) error {
						return report.Predictions(c.Context, c.App.Writer, c.App.ErrWriter, st, q.Filter, c.String(flagReportBy), q.Mode)
					})(c)
				})},
			{Name: "calibration", Usage: report.CalibrationUsage, Description: report.CalibrationDescription, Flags: reportFlags(""),
				Action: withQuery(func(c *cli.Context, q report.Query) error {
					if report.IsFormatHelp(q.Mode.Format) {
						return report.CalibrationFieldHelp(c.App.Writer)
					}
					return withStore(true, func(c *cli.Context, st *db.Store) error {
						return report.Calibration(c.Context, c.App.Writer, c.App.ErrWriter, st, q.Filter, q.Mode)
					})(c)
				})},
			jobCommand(open),
			powerCommand(open),
			refreshCommand(open),
		},
	}
}

func reportFlags(defaultBy string) []cli.Flag {
	fs := []cli.Flag{
		&cli.StringFlag{Name: flagReportStart, Aliases: []string{"S"}, Value: "now-7days",
			Usage: "window start: YYYY-MM-DD[THH:MM[:SS]], now-7days, today, midnight, ..."},
		&cli.StringFlag{Name: flagReportEnd, Aliases: []string{"E"}, Value: "now",
			Usage: "window end (same forms as --starttime)"},
		&cli.StringSliceFlag{Name: flagReportUser, Aliases: []string{"u"}, Usage: "only these users (comma-separated)"},
		&cli.StringSliceFlag{Name: flagReportAccount, Aliases: []string{"A", "accounts"}, Usage: "only these accounts"},
		&cli.StringSliceFlag{Name: flagReportPartition, Aliases: []string{"r"}, Usage: "only these partitions"},
		&cli.StringSliceFlag{Name: flagReportJobs, Aliases: []string{"j"}, Usage: "only these job ids"},
		&cli.StringSliceFlag{Name: flagReportClusters, Aliases: []string{"M"}, Usage: "only these Slurm clusters (ClusterName)"},
		&cli.BoolFlag{Name: flagReportParsable, Aliases: []string{"P"}, Usage: "'|'-separated output with a header"},
		&cli.BoolFlag{Name: flagReportTrailing, Aliases: []string{"p"}, Usage: "like -P with a '|' at the end of each line"},
		&cli.BoolFlag{Name: flagReportNoHeader, Aliases: []string{"n"}, Usage: "no header line"},
		&cli.StringFlag{Name: flagReportFormat, Aliases: []string{"o"}, Usage: "fields to print: Field[%[-]width],... (case-insensitive); help lists them"},
		&cli.StringFlag{Name: flagReportUnits, Usage: "unit of the energy columns: J, Wh, kWh or MWh (K, M as sacct); default kWh"},
		&cli.StringFlag{Name: flagReportTime, Aliases: []string{"t"}, Usage: "GPU time as hours, minutes, seconds, percent (of the report's total) or hours/percent, as sreport -t; default hours"},
		&cli.BoolFlag{Name: flagReportJSON, Usage: "print JSON (unrounded figures)"},
		&cli.BoolFlag{Name: flagReportCSV, Usage: "print CSV (comma-separated, quoted where needed; for spreadsheets)"},
		&cli.StringFlag{Name: flagReportTZ, Value: "Local", EnvVars: []string{"STRATA_TIMEZONE"},
			Usage: "time zone for times and day buckets (IANA name, Local or UTC)"},
	}
	fs = append(fs, reportDBFlags()...)
	if defaultBy != "" {
		fs = append(fs, &cli.StringSliceFlag{Name: flagReportBy, Value: cli.NewStringSlice(defaultBy),
			Usage: "group by job, user, account, partition, node, day, hour (several allowed)"})
	}
	return fs
}

// stateFlag is sacct's --state, for the reports that list jobs.
func stateFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: flagReportState, Aliases: []string{"s"},
		Usage: "only jobs that ended in these states (COMPLETED,TIMEOUT,FAILED,... or CD,TO,F,CA,OOM,...; case-insensitive)"}
}

func energyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: flagReportCost, EnvVars: []string{"STRATA_COST_PER_KWH"},
			Usage: "electricity price per kWh (adds the Cost field)"},
		&cli.StringFlag{Name: flagReportCurrency, Value: "EUR", EnvVars: []string{"STRATA_CURRENCY"},
			Usage: "currency shown in the Cost header"},
		&cli.Float64Flag{Name: flagReportCO2, EnvVars: []string{"STRATA_CO2_KG_PER_KWH"},
			Usage: "grid carbon intensity in kg CO2 per kWh (adds the CO2 field)"},
	}
}

// energyFactors reads the energyFlags of c.
func energyFactors(c *cli.Context) report.EnergyFactors {
	return report.EnergyFactors{CostPerKWh: c.Float64(flagReportCost), Currency: c.String(flagReportCurrency),
		CO2KgPerKWh: c.Float64(flagReportCO2)}
}

// withQuery runs fn with the query the report flags of c make.
func withQuery(fn func(c *cli.Context, q report.Query) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		q, err := reportQuery(c, time.Now())
		if err != nil {
			return err
		}
		return fn(c, q)
	}
}

// reportQuery reads the flags shared by every report.
func reportQuery(c *cli.Context, now time.Time) (report.Query, error) {
	return report.Args{Start: c.String(flagReportStart), End: c.String(flagReportEnd), TimeZone: c.String(flagReportTZ),
		Users: c.StringSlice(flagReportUser), Accounts: c.StringSlice(flagReportAccount),
		Partitions: c.StringSlice(flagReportPartition), Clusters: c.StringSlice(flagReportClusters),
		Jobs: c.StringSlice(flagReportJobs), By: c.StringSlice(flagReportBy), States: c.StringSlice(flagReportState),
		Mode: report.OutputMode{Parsable: c.Bool(flagReportParsable), Trailing: c.Bool(flagReportTrailing),
			NoHeader: c.Bool(flagReportNoHeader), JSON: c.Bool(flagReportJSON), Format: c.String(flagReportFormat),
			CSV: c.Bool(flagReportCSV), Units: c.String(flagReportUnits), Time: c.String(flagReportTime)},
	}.Query(now)
}

func jobCommand(open openSourceFunc) *cli.Command {
	return &cli.Command{
		Name:      "job",
		Usage:     "one job as jobstats shows it: each GPU's utilization, memory and power, energy, idle share, advice, decisions",
		ArgsUsage: "JOBID",
		Description: "Advice thresholds (docs/reports.md, The job view): a GPU below 5 % utilization is unused;\n" +
			"mean utilization below 25 %: fewer GPUs or the input pipeline; memory peak below 25 % of the\n" +
			"GPU's: a smaller GPU type; idle more than 30 % of the time: waits between steps.\n" +
			"Example: strata report job 1234",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: flagReportJSON, Usage: "print JSON (the web's /api/job/ID document)"},
			&cli.StringFlag{Name: flagReportTZ, Value: "Local", EnvVars: []string{"STRATA_TIMEZONE"},
				Usage: "time zone for times (IANA name, Local or UTC)"},
		}, reportDBFlags()...),
		Action: func(c *cli.Context) error {
			ids, err := report.ParseJobIDs(c.Args().Slice())
			if err != nil || len(ids) != 1 {
				return usageError(errors.New("report job: give one numeric JOBID"))
			}
			loc, err := report.LoadZone(c.String(flagReportTZ))
			if err != nil {
				return usageError(err)
			}
			return report.Job(c.Context, c.App.Writer, open.opener(c), ids[0],
				report.JobOptions{JSON: c.Bool(flagReportJSON), Loc: loc})
		},
	}
}

func refreshCommand(open openSourceFunc) *cli.Command {
	return &cli.Command{
		Name:  "refresh",
		Usage: "rebuild the hourly report rollups of -S..-E from the stored samples",
		Description: "The collector refreshes the hours it ingests; run this after importing or\n" +
			"replaying old samples, or to change the idle threshold. Idempotent.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: flagReportStart, Aliases: []string{"S"}, Value: "now-1days", Usage: "first hour to rebuild"},
			&cli.StringFlag{Name: flagReportEnd, Aliases: []string{"E"}, Value: "now", Usage: "end of the rebuild"},
			&cli.Float64Flag{Name: flagReportIdle, Value: db.DefaultIdleUtilPct,
				Usage: "GPU utilization (%) below which an allocated GPU counts as idle"},
		}, reportDBFlags()...),
		Action: func(c *cli.Context) error {
			from, to, err := report.Args{Start: c.String(flagReportStart), End: c.String(flagReportEnd),
				TimeZone: "Local"}.Window(time.Now())
			if err != nil {
				return err
			}
			return report.Refresh(c.Context, open.opener(c), from, to, c.Float64(flagReportIdle), logger(c))
		},
	}
}

// reportDBFlags are the database flags of the report and serve commands
// (the same as `strata db` and `strata collect`, so one configuration key
// serves them all). A read-only database role is enough for reports.
func reportDBFlags() []cli.Flag { return cliflags.Database() }

// openDBReportSource opens the Postgres store named by the database flags
// and checks its schema is current.
func openDBReportSource(c *cli.Context) (report.Source, func(), error) {
	st, err := cliflags.OpenDatabase(c, true)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}
