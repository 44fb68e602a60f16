package main

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/urfave/cli/v2"
)

// energyReport is the JSON document of `report energy --json` and of the
// web page's /api/energy.
type energyReport struct {
	Window  reportWindow   `json:"window"`
	By      []db.ReportDim `json:"by"`
	Factors energyFactors  `json:"factors"`
	Rows    []energyOut    `json:"rows"`
}

func runEnergyReport(c *cli.Context, open openSourceFunc) error {
	a, err := parseReportArgs(c, time.Now())
	if err != nil {
		return err
	}
	f := energyFactors{CostPerKWh: c.Float64(flagReportCost), Currency: c.String(flagReportCurrency),
		CO2KgPerKWh: c.Float64(flagReportCO2)}
	cols, err := selectFields(energyFields(f, a.Loc), a.Mode.Format, energyDefaults(a.By, f))
	if err != nil {
		return usageError(err)
	}
	src, closeSrc, err := open(c)
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.EnergyReport(c.Context, db.EnergyQuery{ReportFilter: a.Filter, By: a.By, Location: a.Loc})
	if err != nil {
		return err
	}
	warnIfStale(c, src, a.Filter.To, a.Loc)
	sortEnergyRows(rows)
	out := energyOutputs(rows, f)
	if a.Mode.JSON {
		return writeJSON(c.App.Writer, energyReport{Window: reportWindow{a.Filter.From, a.Filter.To},
			By: a.By, Factors: f, Rows: out})
	}
	return writeTable(c.App.Writer, cols, out, a.Mode)
}

// usageReport is the JSON document of `report usage --json`.
type usageReport struct {
	Window reportWindow   `json:"window"`
	By     []db.ReportDim `json:"by"`
	Rows   []usageOut     `json:"rows"`
}

func runUsageReport(c *cli.Context, open openSourceFunc) error {
	a, err := parseReportArgs(c, time.Now())
	if err != nil {
		return err
	}
	if err := db.CheckUsageDims(a.By); err != nil {
		return usageError(err)
	}
	cols, err := selectFields(usageFields(), a.Mode.Format, usageDefaults(a.By))
	if err != nil {
		return usageError(err)
	}
	src, closeSrc, err := open(c)
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.UsageReport(c.Context, db.UsageQuery{ReportFilter: a.Filter, By: a.By})
	if err != nil {
		return err
	}
	out := usageOutputs(rows)
	if a.Mode.JSON {
		return writeJSON(c.App.Writer, usageReport{Window: reportWindow{a.Filter.From, a.Filter.To}, By: a.By, Rows: out})
	}
	return writeTable(c.App.Writer, cols, out, a.Mode)
}

// decisionReport is the JSON document of `report decisions --json`.
type decisionReport struct {
	Window reportWindow     `json:"window"`
	Rows   []db.DecisionRow `json:"rows"`
}

func runDecisionReport(c *cli.Context, open openSourceFunc) error {
	a, err := parseReportArgs(c, time.Now())
	if err != nil {
		return err
	}
	cols, err := selectFields(decisionFields(a.Loc), a.Mode.Format, decisionDefaults)
	if err != nil {
		return usageError(err)
	}
	src, closeSrc, err := open(c)
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.DecisionReport(c.Context, db.DecisionQuery{ReportFilter: a.Filter})
	if err != nil {
		return err
	}
	if a.Mode.JSON {
		return writeJSON(c.App.Writer, decisionReport{Window: reportWindow{a.Filter.From, a.Filter.To}, Rows: rows})
	}
	return writeTable(c.App.Writer, cols, rows, a.Mode)
}

// rollupRefresher rebuilds report rollups from samples (*db.Store).
type rollupRefresher interface {
	RefreshReportRollups(ctx context.Context, from, to time.Time, idlePct float64) (int64, error)
}

const flagReportIdle = "idle-below"

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
			now := time.Now()
			loc, err := loadZone("Local")
			if err != nil {
				return usageError(err)
			}
			from, err := parseSlurmTime(c.String(flagReportStart), now, loc)
			if err != nil {
				return usageError(fmt.Errorf("--%s: %w", flagReportStart, err))
			}
			to, err := parseSlurmTime(c.String(flagReportEnd), now, loc)
			if err != nil {
				return usageError(fmt.Errorf("--%s: %w", flagReportEnd, err))
			}
			src, closeSrc, err := open(c)
			if err != nil {
				return err
			}
			defer closeSrc()
			r, ok := src.(rollupRefresher)
			if !ok {
				return fmt.Errorf("report refresh: this source cannot rebuild rollups")
			}
			t0 := time.Now()
			n, err := r.RefreshReportRollups(c.Context, from, to, c.Float64(flagReportIdle))
			if err != nil {
				return err
			}
			lg := logger(c)
			lg.Info().Int64("rows", n).Dur("took", time.Since(t0)).Time("from", from).Time("to", to).
				Msg("report rollups refreshed")
			return nil
		},
	}
}

// freshnessReporter tells how far the report rollups reach (*db.Store).
type freshnessReporter interface {
	ReportFreshness(ctx context.Context) (rolledUp, activity time.Time, err error)
}

// staleAfter is how far GPU activity may run ahead of the rollups before
// reports warn (the collector refreshes every few minutes).
const staleAfter = 15 * time.Minute

// staleness returns a sentence when GPU activity before end has not been
// rolled up yet (the report would miss it), else "".
func staleness(ctx context.Context, src reportSource, end time.Time, loc *time.Location) string {
	f, ok := src.(freshnessReporter)
	if !ok {
		return ""
	}
	rolled, activity, err := f.ReportFreshness(ctx)
	if err != nil {
		return ""
	}
	if activity.After(end) {
		activity = end
	}
	if activity.Sub(rolled) <= staleAfter {
		return ""
	}
	upTo := "nothing yet"
	if !rolled.IsZero() {
		upTo = rolled.In(loc).Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("the report rollups reach %s but GPUs were in use until %s: numbers after that are missing "+
		"until `strata report refresh` runs", upTo, activity.In(loc).Format("2006-01-02 15:04"))
}

// warnIfStale logs staleness as a warning.
func warnIfStale(c *cli.Context, src reportSource, end time.Time, loc *time.Location) {
	if msg := staleness(c.Context, src, end, loc); msg != "" {
		lg := logger(c)
		lg.Warn().Msg(msg)
	}
}
