package report

import (
	"testing"

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
