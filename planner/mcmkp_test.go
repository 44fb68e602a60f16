package planner

import (
	"math"
	"math/rand/v2"
	"testing"
)

// add appends an item (SMD fills the arena directly; the solver tests
// build instances with it); opts are (cost, weights) pairs with len(w) == R.
func (m *mcmkp) add(null float64, costs []float64, weights [][]float64) {
	m.null = append(m.null, null)
	m.cost = append(m.cost, costs...)
	for _, w := range weights {
		m.q = append(m.q, w...)
	}
	m.first = append(m.first, len(m.cost))
}

// feasible reports whether a choice fits the capacities.
func (m *mcmkp) feasible(choice []int) bool {
	use := make([]float64, m.R)
	for _, o := range choice {
		if o >= 0 {
			for r := range m.R {
				use[r] += m.q[o*m.R+r]
			}
		}
	}
	for r := range m.R {
		if use[r] > m.cap[r]+1e-9 {
			return false
		}
	}
	return true
}

// randomInstance builds a small MCMKP resembling SMD: each item has options
// with more GPUs → shorter time; null costs a cycle plus the fastest time.
func randomInstance(rng *rand.Rand, items, maxOpts int) (*mcmkp, []float64) {
	capacity := []float64{float64(4 + rng.IntN(12)), float64(16 + rng.IntN(48)), 100 + rng.Float64()*200}
	m := newMCMKP(3, capacity)
	var den []float64
	for range items {
		k := 1 + rng.IntN(maxOpts)
		base := 100 + rng.Float64()*1000
		weight := 0.5 + rng.Float64()*2
		var costs []float64
		var ws [][]float64
		best := math.Inf(1)
		for o := range k {
			w := 1 << o
			eff := 0.5 + 0.5*rng.Float64()
			t := base / (1 + eff*float64(w-1))
			costs = append(costs, weight*t)
			ws = append(ws, []float64{float64(w), float64(w * (1 + rng.IntN(4))), float64(w) * (5 + rng.Float64()*20)})
			den = append(den, float64(w))
			best = math.Min(best, t)
		}
		m.add(weight*(60+best), costs, ws)
	}
	return m, den
}

// exhaustive enumerates every choice.
func exhaustive(m *mcmkp) float64 {
	n := m.items()
	cur := make([]int, n)
	best := math.Inf(1)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			if m.feasible(cur) {
				best = math.Min(best, m.total(cur))
			}
			return
		}
		cur[i] = -1
		rec(i + 1)
		for o := m.first[i]; o < m.first[i+1]; o++ {
			cur[i] = o
			rec(i + 1)
		}
	}
	rec(0)
	return best
}

func TestMCMKPAgreesWithExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const cases = 300
	var lagAgree int
	var lagGap float64
	for c := range cases {
		m, _ := randomInstance(rng, 2+rng.IntN(5), 4)
		want := exhaustive(m)
		exact := m.solveExact()
		if !m.feasible(exact) || math.Abs(m.total(exact)-want) > 1e-6 {
			t.Fatalf("case %d: exact = %v (feasible %v), exhaustive = %v", c, m.total(exact), m.feasible(exact), want)
		}
		lag, _ := m.solveLagrange(lagrangeIters)
		if !m.feasible(lag) {
			t.Fatalf("case %d: lagrange solution infeasible", c)
		}
		if math.Abs(m.total(lag)-want) <= 1e-6 {
			lagAgree++
		}
		lagGap += m.total(lag)/want - 1
	}
	t.Logf("lagrange+repair optimal in %d/%d, mean gap %.3f%%", lagAgree, cases, 100*lagGap/cases)
	if lagGap/cases > 0.01 {
		t.Errorf("lagrange+repair mean gap %.4f, want ≤ 1%%", lagGap/cases)
	}
}

// TestLagrangeGapLarge measures the Lagrangian + repair solution against
// its own dual bound on large random instances (no exhaustive search is
// possible there): the relative gap bounds the distance to the optimum.
func TestLagrangeGapLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{200, 2000} {
		m, _ := randomInstance(rng, n, 5)
		for r := range m.cap {
			m.cap[r] *= float64(n) / 8 // room for about a third of the jobs
		}
		x, _ := m.solveLagrange(lagrangeIters)
		if !m.feasible(x) {
			t.Fatalf("n=%d: infeasible", n)
		}
		m.solveLagrange(1000) // a longer run only to tighten the lower bound
		gap := (m.total(x) - m.bound) / m.bound
		t.Logf("n=%d: cost %.0f (%d iterations), dual bound %.0f (1000 iterations), gap ≤ %.3f%%",
			n, m.total(x), lagrangeIters, m.bound, 100*gap)
		if gap < -1e-9 || gap > 0.03 {
			t.Errorf("n=%d: gap %.4f outside [0, 3%%]", n, gap)
		}
	}
}
