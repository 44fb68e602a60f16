package planner

import (
	"testing"
	"time"
)

// poolEarliest returns the start it was asked about exactly when the data
// fits from then on: (t − stageIn) + stageIn need not round back to t, and
// SMD's earliest() loops until the profiles agree on one start.
func TestPoolEarliestExact(t *testing.T) {
	ji := &jobInfo{bb: 10 * poolUnit, bbPool: 0, bbHeld: -1, stageIn: 700 * time.Millisecond}
	it := &smdItem{pl: &planned{ji: ji}}
	s := &smdIsland{poolProf: []*gpuProfile{newProfile(100, nil)}}
	o := option{dur: time.Second}
	tests := []struct {
		name     string
		free     int
		release  float64
		at, want float64
	}{
		{name: "fits at once", free: 100, at: 1.1, want: 1.1},
		{name: "space comes back at 5 s: stage-in from then", free: 5, release: 5, at: 1.1, want: 5.7},
	}
	for _, tc := range tests {
		rel := []release(nil)
		if tc.release > 0 {
			rel = []release{{seconds(tc.release), 100}}
		}
		s.poolProf[0] = newProfile(tc.free, rel)
		if got, ok := s.poolEarliest(it, o, tc.at); !ok || got != tc.want {
			t.Errorf("%s: poolEarliest(%v) = %v, %v; want %v", tc.name, tc.at, got, ok, tc.want)
		}
	}
}
