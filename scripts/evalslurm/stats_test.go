package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRanks(t *testing.T) {
	tests := []struct {
		in, want []float64
	}{
		{[]float64{30, 10, 20}, []float64{3, 1, 2}},
		{[]float64{5, 5, 1, 7}, []float64{2.5, 2.5, 1, 4}},
		{[]float64{2, 2, 2}, []float64{2, 2, 2}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, ranks(tt.in)); d != "" {
			t.Errorf("ranks(%v) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order, other scale", []float64{1, 2, 3, 4}, []float64{10, 100, 1000, 10000}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// d² = 0+1+1+0 (ranks 1,3,2,4): 1 − 6·2/(4·15) = 0.8
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 0.8},
		// ties averaged: ranks y = 1.5,1.5,3; Pearson of (1,2,3) and (1.5,1.5,3) = √3/2
		{"ties", []float64{1, 2, 3}, []float64{7, 7, 9}, math.Sqrt(3) / 2},
	}
	for _, tt := range tests {
		if got := spearman(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: spearman = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := spearman([]float64{1, 1}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("constant input: spearman = %v, want NaN", got)
	}
}

func TestMeanSpan(t *testing.T) {
	if got := mean([]float64{1, 2, 6}); got != 3 {
		t.Errorf("mean = %v, want 3", got)
	}
	if got := median([]float64{5, 1, 3, 9}); got != 4 {
		t.Errorf("median = %v, want 4", got)
	}
	if got := span([]float64{5, 2, 9}, []float64{10, 30, 20}); got != 28 {
		t.Errorf("span = %v, want 28", got)
	}
}

// The daemon's cycle lines carry duration_ms= (zerolog's float field);
// older ones duration=20ms: both are counted. Before, the doc's row
// read "0 (0 ms)" for a daemon that ran hundreds of cycles.
func TestStrataCyclesFromTheLog(t *testing.T) {
	log := "2026-11-28T21:04:18Z level=info writer lock taken component=run\n" +
		"2026-11-28T21:04:19Z level=info cycle component=run cycle_id=1 decisions=0 duration_ms=30 enforce=true\n" +
		"2026-11-28T21:04:20Z level=info cycle applied=1 component=run cycle_id=2 duration_ms=10.5 enforce=true\n" +
		"2026-11-28T21:04:21Z level=info cycle duration=20ms\n"
	path := filepath.Join(t.TempDir(), "strata-smd.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	n, mean := strataCycles(path)
	if n != 3 || math.Abs(mean-60.5/3) > 1e-3 {
		t.Errorf("strataCycles = %d cycles, mean %.3f ms; want 3, %.3f", n, mean, 60.5/3)
	}
}
