package report

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// PredictionSource is what the prediction report reads; *db.Store
// implements it.
type PredictionSource interface {
	PredictionReport(ctx context.Context, f db.ReportFilter) ([]db.PredictionRow, error)
}

// PredictionOut is one group of the prediction report: how far predicted
// run times were from the real ones (ratio = predicted / real).
type PredictionOut struct {
	Group       string  `json:"group"`
	Jobs        int     `json:"jobs"`
	MedianRatio float64 `json:"median_ratio"`
	P10Ratio    float64 `json:"p10_ratio"`
	P90Ratio    float64 `json:"p90_ratio"`
	// WithinTwo is the share of jobs predicted within a factor of two.
	WithinTwo float64 `json:"within_2x"`
	// MedianAbsLog2 is the median |log2(ratio)|: 0 exact, 1 a factor of two.
	MedianAbsLog2 float64 `json:"median_abs_log2"`
	// By user, the user's own record as the planner keeps it
	// (planner/trust, over the window's jobs): Record.
	Record *UserRecord `json:"record,omitempty"`
}

// UserRecord is a user's record of claims: how their jobs' real run times
// compared with what was predicted before any correction of theirs.
type UserRecord struct {
	// Jobs counts the user's finished jobs with a prediction (timed-out
	// ones included); Recent those the correction is computed from.
	Jobs   int `json:"jobs"`
	Recent int `json:"recent"`
	// ClaimRatio is the median real / claimed run time of the recent jobs
	// (the inverse of the report's ratio: above 1, the jobs ran longer).
	ClaimRatio float64 `json:"claim_ratio"`
	// TimedOut of the recent jobs were stopped at their time limit, Broken
	// of those had run past their claim.
	TimedOut int `json:"timed_out"`
	Broken   int `json:"broken"`
	// Correction is what it does to the user's next predictions: "none",
	// "×F" or "distrusted" (timed by the time limit); Note says why.
	Correction string `json:"correction"`
	Note       string `json:"note,omitempty"`
}

// PredictionsUsage and PredictionsDescription document `strata report
// predictions`.
const (
	PredictionsUsage       = "how close the planner's predicted run times were to the real ones, by source, user, partition, model or GPU type"
	PredictionsDescription = "For each job that completed in the window (-S/-E), compares the run time the planner\n" +
		"predicted at its last decision before it started with the real one (ratio = predicted /\n" +
		"real): per group the median, P10 and P90 ratio, the share within a factor of two and the\n" +
		"median |log2 ratio|. --by source shows which source of durations to trust: modelled (the\n" +
		"hint and the catalog), predicted (history: similar jobs, the user's mean or the limit's\n" +
		"usual share), time_limit, default;\n" +
		"--by model and --by gpu-type show where the catalog errs on this site's jobs.\n" +
		"--by user adds each user's record: their jobs (timed-out ones too), the median real /\n" +
		"claimed run time (the prediction before any correction of theirs), how many were stopped\n" +
		"at their time limit and how many of those ran past their claim, and the correction it\n" +
		"gives their next predictions (none, ×F, or distrusted: timed by the time limit)."
)

// PredictionBy are the groupings of the prediction report.
var PredictionBy = []string{"source", "user", "partition", "model", "gpu-type", "all"}

// Predictions prints, per group (by: source, user, partition or all), the
// error distribution of the run times the planner predicted, against the
// real ones of the jobs that completed in the window.
// An empty report also writes why it is empty and what to run on notes
// (stderr; its table keeps its header), and in its JSON as "note".
func Predictions(ctx context.Context, w, notes io.Writer, src PredictionSource, f db.ReportFilter, by string, m OutputMode) error {
	if !slices.Contains(PredictionBy, by) {
		return fmt.Errorf("--by %q: choose one of %s", by, strings.Join(PredictionBy, ", "))
	}
	rows, err := src.PredictionReport(ctx, f)
	if err != nil {
		return err
	}
	out := PredictionGroups(rows, by)
	note := ""
	if len(out) == 0 {
		note = emptyPredictions(f, len(rows))
	}
	if m.JSON {
		return WriteJSON(w, struct {
			Window Window          `json:"window"`
			By     string          `json:"by"`
			Rows   []PredictionOut `json:"rows"`
			Note   string          `json:"note,omitempty"`
		}{Window{f.From, f.To}, by, out, note})
	}
	if note != "" {
		if _, err := fmt.Fprintln(notes, "strata: "+note); err != nil {
			return err
		}
	}
	def := []string{"group", "jobs", "median", "p10", "p90", "within2x", "abslog2"}
	if by == "user" {
		def = []string{"group", "jobs", "median", "within2x", "claimratio", "timedout", "broken", "correction"}
	}
	cols, err := SelectFields(predictionFields(by), m.Format, def)
	if err != nil {
		return err
	}
	return WriteTable(w, cols, out, m)
}

// emptyPredictions says why the prediction report of window f has no
// group (n jobs completed, none with a usable run time) and what to run.
func emptyPredictions(f db.ReportFilter, n int) string {
	win := fmt.Sprintf("from %s to %s", f.From.UTC().Format(time.RFC3339), f.To.UTC().Format(time.RFC3339))
	if n > 0 {
		return fmt.Sprintf("no predictions to compare %s: the %d job(s) that completed had no real or predicted run time to compare "+
			"(timed out, or predicted 0); widen -S/-E", win, n)
	}
	return "no predictions to compare " + win + ": no job completed in the window after a decision of the planner. " +
		"The report pairs the run times `strata run` predicted (shadow mode is enough; with --database-url it stores " +
		"its decisions) with the real ones of the jobs that then ended, which `strata run` records from slurmctld's " +
		"list of ended jobs (and `strata collect` for GPU jobs): let it run a while, or widen -S/-E (e.g. -S now-30days)"
}

// PredictionGroups aggregates rows by the grouping, groups in name order.
func PredictionGroups(rows []db.PredictionRow, by string) []PredictionOut {
	groups := map[string][]float64{}
	for _, r := range rows {
		if r.Actual <= 0 || r.Predicted <= 0 || r.TimedOut { // a timed-out run's time is a lower bound
			continue
		}
		k := "all"
		switch by {
		case "source":
			k = r.Source
		case "user":
			k = r.User
		case "partition":
			k = r.Partition
		case "model":
			k = cmp.Or(r.Model, "(no model)")
		case "gpu-type":
			k = cmp.Or(r.GPUType, "(unknown)")
		}
		groups[k] = append(groups[k], r.Predicted/r.Actual)
	}
	var records map[string]*UserRecord
	if by == "user" {
		records = userRecords(rows)
		for u := range records {
			if _, ok := groups[u]; !ok {
				groups[u] = nil // only timed-out jobs: the record still shows
			}
		}
	}
	var out []PredictionOut
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		rs := groups[k]
		slices.Sort(rs)
		abs := make([]float64, len(rs))
		within := 0
		for i, q := range rs {
			abs[i] = math.Abs(math.Log2(q))
			if q >= 0.5 && q <= 2 {
				within++
			}
		}
		slices.Sort(abs)
		o := PredictionOut{Group: k, Jobs: len(rs), MedianRatio: quantile(rs, 0.5),
			P10Ratio: quantile(rs, 0.1), P90Ratio: quantile(rs, 0.9), MedianAbsLog2: quantile(abs, 0.5), Record: records[k]}
		if len(rs) > 0 {
			o.WithinTwo = float64(within) / float64(len(rs))
		}
		out = append(out, o)
	}
	return out
}

// userRecords fits each user's record (planner/trust) from the rows: the
// prediction before the user's correction (Claimed, else Predicted) against
// the real run time, timed-out jobs included; only jobs that ran on the
// decided GPUs and were timed by their hint count, as in the planner's own
// record.
func userRecords(rows []db.PredictionRow) map[string]*UserRecord {
	var outs []trust.Outcome
	for _, r := range rows {
		pred := r.Predicted
		if r.Claimed > 0 {
			pred = r.Claimed
		}
		if !r.SameSize || pred <= 0 || r.Actual <= 0 {
			continue
		}
		outs = append(outs, trust.Outcome{User: r.User, Account: r.Account, JobID: r.JobID, End: r.End,
			Predicted: secs(pred), Real: secs(r.Actual), TimedOut: r.TimedOut,
			NoClaim: !trust.Claimed(planner.Reason("duration_" + r.Source))})
	}
	out := map[string]*UserRecord{}
	for _, rec := range trust.Fit(outs, trust.Config{}) {
		c := rec.Claim
		corr := "none"
		switch {
		case c.Distrust:
			corr = "distrusted"
		case c.Factor != 0 && c.Factor != 1:
			corr = "×" + strconv.FormatFloat(c.Factor, 'f', 2, 64)
		}
		out[rec.User] = &UserRecord{Jobs: rec.Jobs, Recent: rec.Recent, ClaimRatio: rec.MedianRatio, TimedOut: rec.TimedOut,
			Broken: rec.Broken, Correction: corr, Note: c.Note}
	}
	return out
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// quantile is the q-quantile of sorted xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func predictionFields(by string) []Field[PredictionOut] {
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	return []Field[PredictionOut]{
		{Name: "group", Header: strings.ToUpper(by), Value: func(r PredictionOut) string { return r.Group }},
		{Name: "jobs", Header: "Jobs", Value: func(r PredictionOut) string { return strconv.Itoa(r.Jobs) }},
		{Name: "median", Header: "MedianRatio", Value: func(r PredictionOut) string { return f2(r.MedianRatio) }},
		{Name: "p10", Header: "P10Ratio", Value: func(r PredictionOut) string { return f2(r.P10Ratio) }},
		{Name: "p90", Header: "P90Ratio", Value: func(r PredictionOut) string { return f2(r.P90Ratio) }},
		{Name: "within2x", Header: "Within2x%", Value: func(r PredictionOut) string { return FmtFloat(100*r.WithinTwo, 1) }},
		{Name: "abslog2", Header: "MedAbsLog2", Value: func(r PredictionOut) string { return f2(r.MedianAbsLog2) }},
		{Name: "recordjobs", Header: "RecordJobs", Value: func(r PredictionOut) string {
			return rec(r, func(u *UserRecord) string { return strconv.Itoa(u.Jobs) })
		}},
		{Name: "claimratio", Header: "RealOverClaim", Value: func(r PredictionOut) string {
			return rec(r, func(u *UserRecord) string { return strconv.FormatFloat(u.ClaimRatio, 'g', 3, 64) })
		}},
		{Name: "timedout", Header: "TimedOut", Value: func(r PredictionOut) string {
			return rec(r, func(u *UserRecord) string { return strconv.Itoa(u.TimedOut) })
		}},
		{Name: "broken", Header: "Broken", Value: func(r PredictionOut) string {
			return rec(r, func(u *UserRecord) string { return strconv.Itoa(u.Broken) })
		}},
		{Name: "correction", Header: "Correction", Value: func(r PredictionOut) string { return rec(r, func(u *UserRecord) string { return u.Correction }) }},
	}
}

// rec formats a field of the group's user record ("-" without one: not
// grouped by user, or no job of the user with a prediction at its size).
func rec(r PredictionOut, f func(*UserRecord) string) string {
	if r.Record == nil {
		return "-"
	}
	return f(r.Record)
}

// PredictionFieldHelp lists the --format fields of the predictions report
// grouped by by (-o help), without a database.
func PredictionFieldHelp(w io.Writer, by string) error {
	return WriteFieldHelp(w, predictionFields(by))
}
