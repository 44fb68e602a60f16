package report

import (
	"context"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
)

// Query is what a report reads and how it prints it: the window and
// filters, the grouping, the output mode and the time zone of times and
// day buckets.
type Query struct {
	Filter db.ReportFilter
	By     []db.ReportDim
	Mode   OutputMode
	Loc    *time.Location
}

// Window is the window echoed in JSON output.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// InputError is invalid input (a --format, a grouping a report does not
// have): the CLI exits with status 2.
type InputError = inputerr.Error

func inputError(err error) error { return &InputError{Err: err} }

// NotFoundError is a report of named users or jobs that found nothing (a
// misspelt user, a job the planner never decided about): the CLI exits
// with status 1 and says so, rather than printing an empty table.
type NotFoundError struct{ Err error }

func (e *NotFoundError) Error() string { return e.Err.Error() }
func (e *NotFoundError) Unwrap() error { return e.Err }

// ExitCode is the CLI's exit status for a report that found nothing.
func (e *NotFoundError) ExitCode() int { return 1 }

// noRows is a NotFoundError when a report filtered on users or jobs has no
// rows (what names the filter: "GPU energy", "planner decisions").
func noRows(n int, q Query, what string) error {
	f := q.Filter
	if n > 0 || (len(f.Users) == 0 && len(f.Jobs) == 0) {
		return nil
	}
	var named []string
	if len(f.Users) > 0 {
		named = append(named, "user "+strings.Join(f.Users, ","))
	}
	if len(f.Jobs) > 0 {
		ids := make([]string, len(f.Jobs))
		for i, id := range f.Jobs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		named = append(named, "job "+strings.Join(ids, ","))
	}
	layout := "2006-01-02T15:04:05"
	return &NotFoundError{fmt.Errorf("no %s for %s from %s to %s: check the name or the job id, or widen -S/-E",
		what, strings.Join(named, ", "), f.From.In(q.Loc).Format(layout), f.To.In(q.Loc).Format(layout))}
}

// ParseJobIDs reads --jobs values (and the web's job parameters).
func ParseJobIDs(values []string) ([]int64, error) {
	var out []int64
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("parse --jobs %q: want a numeric job id", v)
		}
		out = append(out, id)
	}
	return out, nil
}

// EnergyDoc is the JSON document of `report energy --json` and of the
// web page's /api/energy.
type EnergyDoc struct {
	Window  Window         `json:"window"`
	By      []db.ReportDim `json:"by"`
	Factors EnergyFactors  `json:"factors"`
	Rows    []EnergyOut    `json:"rows"`
}

// Energy prints the energy report of q to w (a table, or JSON with
// q.Mode.JSON). The source is opened once q is known to be valid; log gets
// a warning when the rollups lag behind the GPU activity in the window.
func Energy(ctx context.Context, w io.Writer, open Opener, q Query, f EnergyFactors, log zerolog.Logger) error {
	if IsFormatHelp(q.Mode.Format) {
		return WriteFieldHelp(w, EnergyFields(f, q.Loc))
	}
	if _, err := SelectFields(EnergyFields(f, q.Loc), q.Mode.Format, energyDefaults(q.By, f)); err != nil {
		return inputError(err)
	}
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.EnergyReport(ctx, db.EnergyQuery{ReportFilter: q.Filter, By: q.By, Location: q.Loc})
	if err != nil {
		return err
	}
	if msg := Staleness(ctx, src, q.Filter.To, q.Loc); msg != "" {
		log.Warn().Msg(msg)
	}
	SortEnergyRows(rows)
	out := EnergyOutputs(rows, f)
	if q.Mode.JSON {
		if err := WriteJSON(w, NewEnergyDoc(Window{q.Filter.From, q.Filter.To}, q.By, f, out)); err != nil {
			return err
		}
		return noRows(len(out), q, "GPU energy")
	}
	if err := noRows(len(out), q, "GPU energy"); err != nil {
		return err
	}
	cols, err := SelectFields(withUnits(EnergyFields(f, q.Loc), q.Mode, out), q.Mode.Format, energyDefaults(q.By, f))
	if err != nil {
		return inputError(err)
	}
	return WriteTable(w, cols, out, q.Mode)
}

// UsageDoc is the JSON document of `report usage --json`.
type UsageDoc struct {
	Window Window         `json:"window"`
	By     []db.ReportDim `json:"by"`
	Rows   []UsageOut     `json:"rows"`
}

// Usage prints the usage report of q to w.
func Usage(ctx context.Context, w io.Writer, open Opener, q Query) error {
	if IsFormatHelp(q.Mode.Format) {
		return WriteFieldHelp(w, usageFields())
	}
	if err := db.CheckUsageDims(q.By); err != nil {
		return inputError(err)
	}
	if _, err := SelectFields(usageFields(), q.Mode.Format, usageDefaults(q.By)); err != nil {
		return inputError(err)
	}
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.UsageReport(ctx, db.UsageQuery{ReportFilter: q.Filter, By: q.By})
	if err != nil {
		return err
	}
	out := UsageOutputs(rows)
	if q.Mode.JSON {
		if err := WriteJSON(w, NewUsageDoc(Window{q.Filter.From, q.Filter.To}, q.By, out)); err != nil {
			return err
		}
		return noRows(len(out), q, "usage")
	}
	if err := noRows(len(out), q, "usage"); err != nil {
		return err
	}
	cols, err := SelectFields(usageWithUnits(usageFields(), q.Mode, out), q.Mode.Format, usageDefaults(q.By))
	if err != nil {
		return inputError(err)
	}
	return WriteTable(w, cols, out, q.Mode)
}

// DecisionDoc is the JSON document of `report decisions --json`.
type DecisionDoc struct {
	Window Window           `json:"window"`
	Rows   []db.DecisionRow `json:"rows"`
}

// Decisions prints the planner-decision report of q to w.
func Decisions(ctx context.Context, w io.Writer, open Opener, q Query) error {
	if IsFormatHelp(q.Mode.Format) {
		return WriteFieldHelp(w, DecisionFields(q.Loc))
	}
	cols, err := SelectFields(DecisionFields(q.Loc), q.Mode.Format, DecisionDefaults)
	if err != nil {
		return inputError(err)
	}
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	rows, err := src.DecisionReport(ctx, db.DecisionQuery{ReportFilter: q.Filter})
	if err != nil {
		return err
	}
	if q.Mode.JSON {
		if err := WriteJSON(w, DecisionDoc{Window: Window{q.Filter.From, q.Filter.To}, Rows: rows}); err != nil {
			return err
		}
		return noRows(len(rows), q, "planner decisions")
	}
	if err := noRows(len(rows), q, "planner decisions"); err != nil {
		return err
	}
	return WriteTable(w, cols, rows, q.Mode)
}

// EnergyCSV writes energy rows as CSV with the default columns of their
// grouping (the web page's export).
func EnergyCSV(w io.Writer, out []EnergyOut, by []db.ReportDim, f EnergyFactors, loc *time.Location) error {
	cols, err := SelectFields(EnergyFields(f, loc), "", energyDefaults(by, f))
	if err != nil {
		return err
	}
	return WriteTable(w, cols, out, OutputMode{CSV: true})
}

// UsageCSV writes usage rows as CSV with the default columns.
func UsageCSV(w io.Writer, out []UsageOut, by []db.ReportDim) error {
	cols, err := SelectFields(usageFields(), "", usageDefaults(by))
	if err != nil {
		return err
	}
	return WriteTable(w, cols, out, OutputMode{CSV: true})
}

// DecisionsCSV writes decision rows as CSV with the default columns.
func DecisionsCSV(w io.Writer, rows []db.DecisionRow, loc *time.Location) error {
	cols, err := SelectFields(DecisionFields(loc), "", DecisionDefaults)
	if err != nil {
		return err
	}
	return WriteTable(w, cols, rows, OutputMode{CSV: true})
}
