package planner

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRankSortMatchesStable checks that finalize's fast rank sort (packed
// keys, pdqsort, position tie-break) gives the stable sort's order on keys
// with many ties, signed zeros and infinities.
func TestRankSortMatchesStable(t *testing.T) {
	vals := []float64{math.Inf(-1), -2, -1, math.Copysign(0, -1), 0, 1, 2, 1e300, math.Inf(1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		keys := make([]rankKey, 1+rng.IntN(300))
		for k := range keys {
			keys[k] = rankKey{start: rng.IntN(2) == 0, aged: rng.IntN(3) == 0,
				key: vals[rng.IntN(len(vals))], id: int64(rng.IntN(20)), pos: int32(k)}
		}
		want := slices.Clone(keys)
		slices.SortStableFunc(want, func(x, y rankKey) int { return lessInt(x.before(&y)) })
		got := slices.Clone(keys)
		sortRankKeys(got, true)
		pos := func(ks []rankKey) []int32 {
			out := make([]int32, len(ks))
			for k := range ks {
				out[k] = ks[k].pos
			}
			return out
		}
		if diff := cmp.Diff(pos(want), pos(got)); diff != "" {
			t.Fatalf("trial %d: fast rank order differs from the stable sort (-want +got):\n%s", trial, diff)
		}
	}
}
