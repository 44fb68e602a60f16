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

// gpuEq: an option weighs its GPUs, or its pool share in GPUs of the
// partition when that is larger; jobs without burst-buffer data, or
// without a known pool, weigh their GPUs.
func TestGPUEq(t *testing.T) {
	c := &cycle{pools: []BurstBufferPool{{Name: "bb", CapacityBytes: 100 << 30}}}
	s := &smdIsland{cycle: c, totalGPU: 64}
	o := &option{gpu: 8}
	tests := []struct {
		name       string
		bb         int64
		pool, held int
		want       float64
	}{
		{name: "no burst buffer", bb: 0, pool: -1, held: -1, want: 8},
		{name: "a small share: its GPUs", bb: 10 << 30, pool: 0, held: -1, want: 8},
		{name: "half the pool: half the partition", bb: 50 << 30, pool: 0, held: -1, want: 32},
		{name: "space held already counts too", bb: 75 << 30, pool: -1, held: 0, want: 48},
	}
	for _, tc := range tests {
		ji := &jobInfo{bb: tc.bb, bbPool: tc.pool, bbHeld: tc.held}
		if got := s.gpuEq(ji, o); got != tc.want {
			t.Errorf("%s: gpuEq = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// stageTime: the bandwidth per job, or an equal share of the pool's total
// among the transfers under way when that is less; the snapshot's figures
// win over the options'.
func TestStageTime(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name             string
		perJob, total    float64 // the pool's, from the snapshot
		optJob, optTotal float64 // Options'
		flows            int
		want             time.Duration
	}{
		{name: "per job only", perJob: gib, flows: 3, want: 10 * time.Second},
		{name: "alone under the total", perJob: gib, total: 4 * gib, flows: 1, want: 10 * time.Second},
		{name: "eight share 4 GiB/s", perJob: gib, total: 4 * gib, flows: 8, want: 20 * time.Second},
		{name: "total only", total: 2 * gib, flows: 4, want: 20 * time.Second},
		{name: "from the options", optJob: gib, optTotal: 2 * gib, flows: 4, want: 20 * time.Second},
		{name: "the snapshot's total wins", total: 10 * gib, optJob: gib, optTotal: gib, flows: 2, want: 10 * time.Second},
		{name: "nothing known", flows: 2, want: 0},
	}
	for _, tc := range tests {
		c := &cycle{pools: []BurstBufferPool{{Name: "bb", BandwidthBps: tc.perJob, TotalBandwidthBps: tc.total}},
			o: &Options{BurstBufferBps: tc.optJob, BurstBufferPoolBps: tc.optTotal}}
		if got := c.stageTime(0, 10*gib, tc.flows); got != tc.want {
			t.Errorf("%s: stageTime = %v, want %v", tc.name, got, tc.want)
		}
	}
}
