package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
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

// dayRefresher is a refresher whose daily rollups disagree on days.
type dayRefresher struct {
	refresher
	days []time.Time
}

func (r *dayRefresher) CheckDayRollups(_ context.Context, from, to time.Time) ([]time.Time, error) {
	return r.days, nil
}

// TestRefreshLogsRebuiltDays (issue 35.1, bad input): `strata report
// refresh` checks the daily rollups of its days and logs each one that
// disagreed with its hourly rows and was rebuilt; none, nothing.
func TestRefreshLogsRebuiltDays(t *testing.T) {
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		days []time.Time
		want int
	}{{"all agree", nil, 0}, {"two rebuilt", []time.Time{day, day.Add(24 * time.Hour)}, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			r := &dayRefresher{days: tc.days}
			var log bytes.Buffer
			open := func() (Source, func(), error) { return r, func() {}, nil }
			if err := Refresh(context.Background(), open, reporttest.DemoStart, reporttest.DemoEnd, 5, zerolog.New(&log)); err != nil {
				t.Fatal(err)
			}
			got := strings.Count(log.String(), `"level":"warn","day":"2026-11-2`)
			if got != tc.want || tc.want > 0 && !strings.Contains(log.String(), "rebuilt from them") {
				t.Errorf("%d warnings, want %d:\n%s", got, tc.want, log.String())
			}
		})
	}
}
