package power_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner/power"
)

func TestForecasters(t *testing.T) {
	tests := []struct {
		name string
		fc   power.Forecaster
		past []float64
		h    int
		want []float64
	}{
		{"recent max over the window", power.RecentMax{Window: 2}, []float64{9, 5, 3}, 3, []float64{5, 5, 5}},
		{"recent max window 0 is the last value", power.RecentMax{}, []float64{9, 5, 3}, 2, []float64{3, 3}},
		{"recent max window longer than the past", power.RecentMax{Window: 10}, []float64{1, 4}, 1, []float64{4}},
		// x̂[t+k] = x[t+k−3] + (x[t] − x[t−3]) = x[t+k−3] + 3; beyond one
		// period the forecast repeats itself.
		{"seasonal shifted by the level", power.Seasonal{Period: 3}, []float64{1, 2, 3, 4, 5}, 4, []float64{6, 7, 8, 6}},
		{"seasonal without a period of history repeats now", power.Seasonal{Period: 3}, []float64{1, 2}, 2, []float64{2, 2}},
		{"seasonal never below zero", power.Seasonal{Period: 2}, []float64{0, 9, 5, 0}, 2, []float64{0, 0}},
		{"oracle is the true future", power.Oracle{Series: []float64{1, 2, 3, 4}}, []float64{1, 2}, 3, []float64{3, 4, 4}},
		{"oracle past the end repeats the last", power.Oracle{Series: []float64{1, 2}}, []float64{1, 2}, 2, []float64{2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fc.Forecast(tt.past, tt.h)); diff != "" {
				t.Errorf("forecast (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseForecaster(t *testing.T) {
	busy := []float64{1, 2}
	tests := []struct {
		in      string
		want    power.Forecaster
		wantErr bool
	}{
		{in: "recent-max", want: power.RecentMax{Window: 36}},
		{in: "recent-max:18", want: power.RecentMax{Window: 18}},
		{in: "seasonal", want: power.Seasonal{Period: 144}},
		{in: "seasonal:1008", want: power.Seasonal{Period: 1008}},
		{in: "oracle", want: power.Oracle{Series: busy}},
		{in: "oracle:3", wantErr: true},
		{in: "recent-max:0", wantErr: true},
		{in: "recent-max:x", wantErr: true},
		{in: "lightgbm", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := power.ParseForecaster(tt.in, busy)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseForecaster(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("forecaster (-want +got):\n%s", diff)
			}
		})
	}
}
