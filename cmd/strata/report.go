package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/urfave/cli/v2"
)

// reportSource is what reports and the web page read. *db.Store implements
// it; tests use an in-memory fake. Every method reads rollups, never raw
// samples, except JobReport's per-job series (one job's GPUs only).
type reportSource interface {
	// EnergyReport groups pro-rated GPU time and energy by q.By.
	EnergyReport(ctx context.Context, q db.EnergyQuery) ([]db.EnergyRow, error)
	// UsageReport groups GPU time, queueing and JCT by q.By.
	UsageReport(ctx context.Context, q db.UsageQuery) ([]db.UsageRow, error)
	// DecisionReport counts the planner's decisions by action and reason.
	DecisionReport(ctx context.Context, q db.DecisionQuery) ([]db.DecisionRow, error)
	// JobReport returns one job's page; errors wrap db.ErrNotFound when
	// the job is unknown.
	JobReport(ctx context.Context, job int64) (db.JobReport, error)
}

// openSourceFunc opens the report source for a command; the returned
// function releases it.
type openSourceFunc func(c *cli.Context) (reportSource, func(), error)

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
	flagReportParsable  = "parsable2"
	flagReportTrailing  = "parsable"
	flagReportNoHeader  = "noheader"
	flagReportFormat    = "format"
	flagReportJSON      = "json"
	flagReportCost      = "cost-per-kwh"
	flagReportCurrency  = "currency"
	flagReportCO2       = "co2-kg-per-kwh"
	flagReportTZ        = "timezone"
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
				Flags:  append(reportFlags("user"), energyFlags()...),
				Action: func(c *cli.Context) error { return runEnergyReport(c, open) }},
			{Name: "usage", Usage: "GPU-hours, queueing and job completion time by user/account/partition",
				Flags:  reportFlags("user"),
				Action: func(c *cli.Context) error { return runUsageReport(c, open) }},
			{Name: "decisions", Usage: "what the planner changed, by action and reason",
				Flags:  reportFlags(""),
				Action: func(c *cli.Context) error { return runDecisionReport(c, open) }},
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
		&cli.StringFlag{Name: flagReportFormat, Aliases: []string{"o"}, Usage: "fields to print: Field[%[-]width],... (case-insensitive)"},
		&cli.BoolFlag{Name: flagReportJSON, Usage: "print JSON"},
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

// reportArgs are the flags shared by every report, converted once.
type reportArgs struct {
	Filter db.ReportFilter
	By     []db.ReportDim
	Mode   outputMode
	Loc    *time.Location
}

func parseReportArgs(c *cli.Context, now time.Time) (reportArgs, error) {
	var a reportArgs
	loc, err := loadZone(c.String(flagReportTZ))
	if err != nil {
		return a, usageError(err)
	}
	a.Loc = loc
	if a.Filter.From, err = parseSlurmTime(c.String(flagReportStart), now, loc); err != nil {
		return a, usageError(fmt.Errorf("--%s: %w", flagReportStart, err))
	}
	if a.Filter.To, err = parseSlurmTime(c.String(flagReportEnd), now, loc); err != nil {
		return a, usageError(fmt.Errorf("--%s: %w", flagReportEnd, err))
	}
	if err := a.Filter.Validate(); err != nil {
		return a, usageError(err)
	}
	a.Filter.Users = c.StringSlice(flagReportUser)
	a.Filter.Accounts = c.StringSlice(flagReportAccount)
	a.Filter.Partitions = c.StringSlice(flagReportPartition)
	a.Filter.Clusters = c.StringSlice(flagReportClusters)
	if a.Filter.Jobs, err = parseJobIDs(c.StringSlice(flagReportJobs)); err != nil {
		return a, usageError(err)
	}
	if a.By, err = db.ParseReportDims(c.StringSlice(flagReportBy)); err != nil {
		return a, usageError(err)
	}
	a.Mode = outputMode{Parsable: c.Bool(flagReportParsable), Trailing: c.Bool(flagReportTrailing),
		NoHeader: c.Bool(flagReportNoHeader),
		JSON:     c.Bool(flagReportJSON), Format: c.String(flagReportFormat)}
	return a, nil
}

func parseJobIDs(values []string) ([]int64, error) {
	var out []int64
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("parse --%s %q: want a numeric job id", flagReportJobs, v)
		}
		out = append(out, id)
	}
	return out, nil
}

// usageError marks invalid input (exit status 2).
func usageError(err error) error { return exitError{code: 2, err: err} }

// reportWindow is the window echoed in JSON output.
type reportWindow struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// loadZone loads a --timezone value. "Local" is resolved to the IANA name
// of the local zone (from TZ or the /etc/localtime link) because Postgres
// cuts day buckets by name: an abbreviation such as "EST" has no DST.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		for _, cand := range []string{os.Getenv("TZ"), localtimeLink()} {
			if l, err := time.LoadLocation(strings.TrimPrefix(cand, ":")); err == nil && cand != "" {
				return l, nil
			}
		}
		return time.Local, nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("parse --%s: %w", flagReportTZ, err)
	}
	return l, nil
}

func localtimeLink() string {
	p, err := os.Readlink("/etc/localtime")
	if err != nil {
		return ""
	}
	if _, name, ok := strings.Cut(p, "zoneinfo/"); ok {
		return name
	}
	return ""
}
