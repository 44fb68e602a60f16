package report

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
)

// Source is what reports and the web page read. *db.Store implements it;
// tests use fixed rows (reporttest). Every method reads rollups, never raw
// samples, except JobReport's per-job series (one job's GPUs only).
type Source interface {
	// EnergyReport groups pro-rated GPU time and energy by q.By.
	EnergyReport(ctx context.Context, q db.EnergyQuery) ([]db.EnergyRow, error)
	// UsageReport groups GPU time, queueing and JCT by q.By.
	UsageReport(ctx context.Context, q db.UsageQuery) ([]db.UsageRow, error)
	// DecisionReport counts the planner's decisions by action and reason.
	DecisionReport(ctx context.Context, q db.DecisionQuery) ([]db.DecisionRow, error)
	// JobReport returns one job's page as scope sees it; errors wrap
	// db.ErrNotFound when the job is unknown or outside scope.
	JobReport(ctx context.Context, job int64, scope db.Scope) (db.JobReport, error)
}

// Opener opens the source of a report; the returned function releases it.
// Reports call it only once their arguments are known to be valid.
type Opener func() (Source, func(), error)

// rollupRefresher rebuilds report rollups from samples (*db.Store).
type rollupRefresher interface {
	RefreshReportRollups(ctx context.Context, from, to time.Time, idlePct float64) (int64, error)
}

// Refresh rebuilds the hourly report rollups of from..to (and the daily
// ones of their days), counting an allocated GPU below idlePct utilization
// as idle, checks the daily rollups of those days against their hours, and
// logs what it did.
func Refresh(ctx context.Context, open Opener, from, to time.Time, idlePct float64, log zerolog.Logger) error {
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	r, ok := src.(rollupRefresher)
	if !ok {
		return fmt.Errorf("report refresh: this source cannot rebuild rollups")
	}
	t0 := time.Now()
	n, err := r.RefreshReportRollups(ctx, from, to, idlePct)
	if err != nil {
		return err
	}
	log.Info().Int64("rows", n).Dur("took_ms", time.Since(t0)).Time("from", from).Time("to", to).
		Msg("report rollups refreshed")
	return checkDays(ctx, src, from, to, log)
}

// dayChecker compares the daily rollups with their hourly rows and rebuilds
// the days that disagree (*db.Store).
type dayChecker interface {
	CheckDayRollups(ctx context.Context, from, to time.Time) ([]time.Time, error)
}

// checkDays checks the daily and per-group rollups of the days of from..to
// against their hours and job rows (the refresh rebuilt the days it
// touched; a day summed from other hours, written or deleted by hand or by
// an older Strata, is rebuilt here) and logs each day it rebuilt.
func checkDays(ctx context.Context, src Source, from, to time.Time, log zerolog.Logger) error {
	c, ok := src.(dayChecker)
	if !ok {
		return nil
	}
	days, err := c.CheckDayRollups(ctx, from, to)
	if err != nil {
		return err
	}
	for _, d := range days {
		log.Warn().Time("day", d).Msg("daily or per-group rollups disagreed with their hourly rows and job rows: rebuilt from them")
	}
	return nil
}

// freshnessReporter tells how far the report rollups reach (*db.Store).
type freshnessReporter interface {
	ReportFreshness(ctx context.Context) (rolledUp, activity time.Time, err error)
}

// staleAfter is how far GPU activity may run ahead of the rollups before
// reports warn (the collector refreshes every few minutes).
const staleAfter = 15 * time.Minute

// Staleness returns a sentence when GPU activity before end has not been
// rolled up yet (the report would miss it), else "".
func Staleness(ctx context.Context, src Source, end time.Time, loc *time.Location) string {
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
