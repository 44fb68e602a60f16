package report

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/db"
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
}

// PredictionsUsage and PredictionsDescription document `strata report
// predictions`.
const (
	PredictionsUsage       = "how close the planner's predicted run times were to the real ones, by source, user or partition"
	PredictionsDescription = "For each job that completed in the window (-S/-E), compares the run time the planner\n" +
		"predicted at its last decision before it started with the real one (ratio = predicted /\n" +
		"real): per group the median, P10 and P90 ratio, the share within a factor of two and the\n" +
		"median |log2 ratio|. --by source shows which source of durations to trust: modelled (the\n" +
		"hint and the catalog), predicted (the history of similar jobs), time_limit, default."
)

// PredictionBy are the groupings of the prediction report.
var PredictionBy = []string{"source", "user", "partition", "all"}

// Predictions prints, per group (by: source, user, partition or all), the
// error distribution of the run times the planner predicted, against the
// real ones of the jobs that completed in the window.
func Predictions(ctx context.Context, w io.Writer, src PredictionSource, f db.ReportFilter, by string, m OutputMode) error {
	if !slices.Contains(PredictionBy, by) {
		return fmt.Errorf("--by %q: choose one of %s", by, strings.Join(PredictionBy, ", "))
	}
	rows, err := src.PredictionReport(ctx, f)
	if err != nil {
		return err
	}
	out := PredictionGroups(rows, by)
	if m.JSON {
		return WriteJSON(w, struct {
			Window Window          `json:"window"`
			By     string          `json:"by"`
			Rows   []PredictionOut `json:"rows"`
		}{Window{f.From, f.To}, by, out})
	}
	cols, err := SelectFields(predictionFields(by), m.Format, []string{"group", "jobs", "median", "p10", "p90", "within2x", "abslog2"})
	if err != nil {
		return err
	}
	return WriteTable(w, cols, out, m)
}

// PredictionGroups aggregates rows by the grouping, groups in name order.
func PredictionGroups(rows []db.PredictionRow, by string) []PredictionOut {
	groups := map[string][]float64{}
	for _, r := range rows {
		if r.Actual <= 0 || r.Predicted <= 0 {
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
		}
		groups[k] = append(groups[k], r.Predicted/r.Actual)
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
		out = append(out, PredictionOut{Group: k, Jobs: len(rs), MedianRatio: quantile(rs, 0.5),
			P10Ratio: quantile(rs, 0.1), P90Ratio: quantile(rs, 0.9),
			WithinTwo: float64(within) / float64(len(rs)), MedianAbsLog2: quantile(abs, 0.5)})
	}
	return out
}

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
	}
}

// PredictionFieldHelp lists the --format fields of the predictions report
// grouped by by (-o help), without a database.
func PredictionFieldHelp(w io.Writer, by string) error {
	return WriteFieldHelp(w, predictionFields(by))
}
