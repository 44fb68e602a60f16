package planner

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// addedProfile is newProfile as it was first written: each release added
// in turn.
func addedProfile(freeNow int, releases []release) *gpuProfile {
	p := &gpuProfile{at: []float64{0}, free: []int{freeNow}}
	for _, r := range releases {
		p.add(max(0, r.after.Seconds()), math.Inf(1), r.gpus)
	}
	return p
}

// TestNewProfileAsAdded checks that newProfile builds the same steps as
// adding each release in turn: releases in any order, at equal times, at
// or before now, and of no GPUs.
func TestNewProfileAsAdded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][]release{
		nil,
		{{after: 0, gpus: 2}},
		{{after: -time.Minute, gpus: 1}, {after: 0, gpus: 3}},
		{{after: time.Hour, gpus: 4}, {after: time.Minute, gpus: 0}, {after: time.Hour, gpus: 2}},
	}
	for range 200 {
		rel := make([]release, rng.IntN(40))
		for k := range rel {
			rel[k] = release{after: time.Duration(rng.IntN(20)-3) * time.Minute, gpus: rng.IntN(9)}
		}
		cases = append(cases, rel)
	}
	for i, rel := range cases {
		got, want := newProfile(5, rel), addedProfile(5, rel)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(gpuProfile{})); diff != "" {
			t.Fatalf("case %d (%v): newProfile differs from adding each release (-want +got):\n%s", i, rel, diff)
		}
	}
}
