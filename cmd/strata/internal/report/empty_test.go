package report

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
)

// TestEmptyReportsSayWhy (issue 35.6): an empty predictions or
// calibration report says on stderr why it is empty and what to run (and
// in its JSON), while stdout keeps its header; a report with rows says
// nothing more.
func TestEmptyReportsSayWhy(t *testing.T) {
	f := db.ReportFilter{From: calT0, To: calT0.Add(24 * time.Hour)}
	end := calT0.Add(time.Hour)
	tests := []struct {
		name      string
		run       func(w, notes *strings.Builder) error
		wantNote  []string // in stderr (or the JSON), all
		wantOut   string   // stdout prefix
		wantQuiet bool     // stderr empty
	}{
		{"predictions: nothing decided", func(w, n *strings.Builder) error {
			return Predictions(context.Background(), w, n, fixedPredictions(nil), f, "source", OutputMode{})
		}, []string{"strata: no predictions to compare from 2026-", "`strata run`", "`strata collect`", "widen -S/-E"}, "SOURCE", false},
		{"predictions: only timed-out jobs", func(w, n *strings.Builder) error {
			return Predictions(context.Background(), w, n, fixedPredictions{{User: "a", Predicted: 60, Actual: 600, TimedOut: true, End: end}},
				f, "source", OutputMode{CSV: true})
		}, []string{"the 1 job(s) that completed had no real or predicted run time"}, "SOURCE,Jobs", false},
		{"predictions --json", func(w, n *strings.Builder) error {
			return Predictions(context.Background(), w, n, fixedPredictions(nil), f, "all", OutputMode{JSON: true})
		}, []string{`"note": "no predictions to compare`}, "{", true},
		{"predictions with rows: no note", func(w, n *strings.Builder) error {
			return Predictions(context.Background(), w, n, fixedPredictions{{User: "a", Source: "modelled", Predicted: 60, Actual: 60, End: end}},
				f, "source", OutputMode{})
		}, nil, "SOURCE", true},
		{"calibration: nothing decided", func(w, n *strings.Builder) error {
			return Calibration(context.Background(), w, n, calSource(nil), f, OutputMode{})
		}, []string{"strata: no calibration from 2026-", "GPU type", "`strata run`", "`strata collect`", "widen -S/-E"}, "Kind", false},
		{"calibration --json", func(w, n *strings.Builder) error {
			return Calibration(context.Background(), w, n, calSource(nil), f, OutputMode{JSON: true})
		}, []string{`"note": "no calibration from`}, "{", true},
		{"calibration with rows: no note", func(w, n *strings.Builder) error {
			return Calibration(context.Background(), w, n, calSource(calJobs()), f, OutputMode{})
		}, nil, "Kind", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, notes strings.Builder
			if err := tc.run(&out, &notes); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(strings.TrimSpace(out.String()), tc.wantOut) {
				t.Errorf("stdout %q: want it to start with %q", out.String(), tc.wantOut)
			}
			if tc.wantQuiet != (notes.Len() == 0) {
				t.Errorf("stderr %q: want it empty: %v", notes.String(), tc.wantQuiet)
			}
			for _, w := range tc.wantNote {
				if !strings.Contains(notes.String()+out.String(), w) {
					t.Errorf("lacks %q:\nstdout %s\nstderr %s", w, out.String(), notes.String())
				}
			}
		})
	}
}
