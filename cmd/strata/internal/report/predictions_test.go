package report

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
)

func TestPredictionGroups(t *testing.T) {
	rows := []db.PredictionRow{
		{User: "alice", Source: "modelled", Predicted: 3600, Actual: 3600},
		{User: "alice", Source: "modelled", Predicted: 1800, Actual: 3600},
		{User: "bob", Source: "time_limit", Predicted: 86400, Actual: 3600},
		{User: "bob", Source: "predicted", Predicted: 7200, Actual: 3600},
		{User: "bob", Source: "predicted", Predicted: 1, Actual: 0}, // never started: ignored
	}
	got := PredictionGroups(rows, "source")
	want := []PredictionOut{
		{Group: "modelled", Jobs: 2, MedianRatio: 0.5, P10Ratio: 0.5, P90Ratio: 1, WithinTwo: 1, MedianAbsLog2: 0},
		{Group: "predicted", Jobs: 1, MedianRatio: 2, P10Ratio: 2, P90Ratio: 2, WithinTwo: 1, MedianAbsLog2: 1},
		{Group: "time_limit", Jobs: 1, MedianRatio: 24, P10Ratio: 24, P90Ratio: 24, WithinTwo: 0, MedianAbsLog2: 4.584962500721156},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("groups by source (-want +got):\n%s", diff)
	}
	if all := PredictionGroups(rows, "all"); len(all) != 1 || all[0].Jobs != 4 {
		t.Errorf("all: %+v", all)
	}
}

// TestPredictionsByUserRecord (issue 22.1): --by user shows each user's
// record: jobs, the median real / claimed run time (the prediction before
// the user's correction), timed-out and broken claims, and the correction
// it gives their next predictions.
func TestPredictionsByUserRecord(t *testing.T) {
	end := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	rows := []db.PredictionRow{
		{User: "alice", JobID: 1, End: end, Source: "modelled", Predicted: 3600, Actual: 3700, SameSize: true},
		{User: "alice", JobID: 2, End: end.Add(time.Hour), Source: "modelled", Predicted: 3600, Actual: 3500, SameSize: true},
		// distrusted already: planned at its limit (Predicted), claimed 36 s
		{User: "mallory", JobID: 3, End: end, Source: "modelled", Predicted: 172800, Claimed: 36, Actual: 3600, SameSize: true},
		{User: "mallory", JobID: 4, End: end.Add(time.Hour), Source: "modelled", Predicted: 60, Actual: 1800, TimedOut: true, SameSize: true},
		{User: "bob", JobID: 5, End: end, Source: "modelled", Predicted: 600, Actual: 1800, SameSize: true},
	}
	got := map[string]UserRecord{}
	for _, g := range PredictionGroups(rows, "user") {
		if g.Record == nil {
			t.Fatalf("user %s without a record", g.Group)
		}
		r := *g.Record
		r.Note = ""
		got[g.Group] = r
	}
	// The median weighs each job by its GPU-hours (issue 30): of two jobs,
	// the longer run's ratio.
	want := map[string]UserRecord{
		"alice":   {Jobs: 2, Recent: 2, ClaimRatio: 3700.0 / 3600, Correction: "none"},
		"bob":     {Jobs: 1, Recent: 1, ClaimRatio: 3, Correction: "×3.00"}, // 1.73, understated: squared
		"mallory": {Jobs: 2, Recent: 2, ClaimRatio: 100, TimedOut: 1, Broken: 1, Correction: "distrusted"},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0.01, 0)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	var out strings.Builder
	if err := Predictions(context.Background(), &out, io.Discard, fixedPredictions(rows), db.ReportFilter{From: end.Add(-time.Hour), To: end.Add(2 * time.Hour)}, "user", OutputMode{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Correction", "distrusted", "×3.00"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, out.String())
		}
	}
}

type fixedPredictions []db.PredictionRow

func (f fixedPredictions) PredictionReport(context.Context, db.ReportFilter) ([]db.PredictionRow, error) {
	return f, nil
}

// TestPredictionsByModelAndGPUType (issue 32.2): the error of the
// catalog on this site's jobs, by model and by GPU type; a job timed
// without a model is grouped apart, and a timed-out run (a lower bound) is
// left out of the ratios.
func TestPredictionsByModelAndGPUType(t *testing.T) {
	rows := []db.PredictionRow{
		{User: "a", Source: "modelled", Model: "bert", GPUType: "a100", Predicted: 1800, Actual: 3600},
		{User: "b", Source: "modelled", Model: "bert", GPUType: "a100", Predicted: 1800, Actual: 3600},
		{User: "a", Source: "modelled", Model: "resnet50", GPUType: "v100", Predicted: 3600, Actual: 3600},
		{User: "c", Source: "predicted", Predicted: 600, Actual: 1200},
		{User: "a", Source: "modelled", Model: "bert", GPUType: "a100", Predicted: 60, Actual: 3600, TimedOut: true},
	}
	got := map[string][2]float64{} // group: jobs, median ratio
	for _, g := range PredictionGroups(rows, "model") {
		got[g.Group] = [2]float64{float64(g.Jobs), g.MedianRatio}
	}
	want := map[string][2]float64{"bert": {2, 0.5}, "resnet50": {1, 1}, "(no model)": {1, 0.5}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("by model (-want +got):\n%s", d)
	}
	got = map[string][2]float64{}
	for _, g := range PredictionGroups(rows, "gpu-type") {
		got[g.Group] = [2]float64{float64(g.Jobs), g.MedianRatio}
	}
	want = map[string][2]float64{"a100": {2, 0.5}, "v100": {1, 1}, "(unknown)": {1, 0.5}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("by GPU type (-want +got):\n%s", d)
	}
}
