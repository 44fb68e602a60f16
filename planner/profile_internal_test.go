package planner

import (
	"math"
	"math/rand/v2"
	"slices"
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

// TestNewProfileSorted checks that merging releases sorted by time with a
// few in any order builds the profile newProfile builds from all of them
// (ties across the two lists, releases at or before now, of no GPUs).
func TestNewProfileSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		rel := make([]release, rng.IntN(40))
		for k := range rel {
			rel[k] = release{after: time.Duration(rng.IntN(20)-3) * time.Minute, gpus: rng.IntN(9)}
		}
		cut := 0
		if len(rel) > 0 {
			cut = rng.IntN(len(rel) + 1)
		}
		sorted := slices.Clone(rel[:cut])
		slices.SortStableFunc(sorted, byAfter)
		extra := slices.Clone(rel[cut:])
		want := newProfile(5, rel)
		var dst *gpuProfile
		if i%2 == 1 { // in the buffers of an earlier profile
			dst = newProfile(9, rel[:len(rel)/2])
		}
		got := newProfileSorted(dst, 5, sorted, extra, i%3)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(gpuProfile{})); diff != "" {
			t.Fatalf("case %d (%v): newProfileSorted differs from newProfile (-want +got):\n%s", i, rel, diff)
		}
	}
}

// TestStepAt checks the binary search of a profile's step (and of its
// next breakpoint) against the walks split, earliest and nextBreak did
// before.
func TestStepAt(t *testing.T) {
	walk := func(p *gpuProfile, t float64) int {
		k := len(p.at) - 1
		for k > 0 && p.at[k] > t {
			k--
		}
		return k
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		rel := make([]release, rng.IntN(12))
		for k := range rel {
			rel[k] = release{after: time.Duration(rng.IntN(10)) * time.Minute, gpus: 1}
		}
		p := newProfile(0, rel)
		for _, at := range []float64{-1, 0, 30, 60, 61, 299.5, 300, 540, 600, 1e9, math.NaN()} {
			if got, want := p.stepAt(at), walk(p, at); got != want {
				t.Fatalf("case %d: stepAt(%v) of %v = %d, want %d", i, at, p.at, got, want)
			}
			want, wantOK := 0.0, false
			for _, b := range p.at {
				if b > at {
					want, wantOK = b, true
					break
				}
			}
			if got, ok := nextBreak(p, at); got != want || ok != wantOK {
				t.Fatalf("case %d: nextBreak(%v) of %v = %v, %v; want %v, %v", i, at, p.at, got, ok, want, wantOK)
			}
		}
	}
}
