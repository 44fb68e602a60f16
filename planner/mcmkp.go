package planner

import (
	"math"
	"slices"
)

// mcmkp is a multiple-choice multi-dimensional knapsack: every item takes
// at most one of its options (or none, at its null cost); the options'
// weights must fit the capacities; minimise the total cost.
// Options live in flat arenas so 10^5 options cost no per-option
// allocation: item i owns options first[i] .. first[i+1]-1, option o has
// cost[o] and weights q[o*R : o*R+R].
type mcmkp struct {
	R     int
	cap   []float64
	first []int
	null  []float64
	cost  []float64
	q     []float64
	// bound is the best Lagrangian lower bound found by solveLagrange.
	bound float64
}

func newMCMKP(r int, capacity []float64) *mcmkp {
	return &mcmkp{R: r, cap: capacity, first: []int{0}}
}

func (m *mcmkp) items() int { return len(m.null) }

// total is the objective of a choice (-1 = null).
func (m *mcmkp) total(choice []int) float64 {
	var t float64
	for i, o := range choice {
		if o < 0 {
			t += m.null[i]
		} else {
			t += m.cost[o]
		}
	}
	return t
}

// fits reports whether option o fits the remaining capacity rem.
func (m *mcmkp) fits(o int, rem []float64) bool {
	for r := range m.R {
		if m.q[o*m.R+r] > rem[r]+1e-9 {
			return false
		}
	}
	return true
}

func (m *mcmkp) take(o int, rem []float64, sign float64) {
	for r := range m.R {
		rem[r] -= sign * m.q[o*m.R+r]
	}
}

// normWeight is Σ_r q_r / cap_r, the option's share of the capacity.
func (m *mcmkp) normWeight(o int) float64 {
	var s float64
	for r := range m.R {
		if q := m.q[o*m.R+r]; q > 0 {
			if m.cap[r] <= 0 {
				return math.Inf(1)
			}
			s += q / m.cap[r]
		}
	}
	return s
}

// solve picks the exact branch-and-bound when the instance is small
// enough, and Lagrangian relaxation with repair otherwise. It returns the
// choice and the final resource prices (nil for the exact solver).
func (m *mcmkp) solve() ([]int, []float64) {
	if m.searchSpace() <= exactLimit {
		return m.solveExact(), nil
	}
	return m.solveLagrange(lagrangeIters)
}

// exactLimit bounds the product of option counts for the exact solver.
const (
	exactLimit    = 20000
	lagrangeIters = 40
)

func (m *mcmkp) searchSpace() float64 {
	s := 1.0
	for i := range m.items() {
		s *= float64(m.first[i+1] - m.first[i] + 1)
		if s > 1e12 {
			break
		}
	}
	return s
}

// solveExact is depth-first branch and bound; the bound adds, for every
// item not yet decided, its cheapest choice ignoring capacity.
func (m *mcmkp) solveExact() []int {
	n := m.items()
	minRest := make([]float64, n+1)
	for i := n - 1; i >= 0; i-- {
		best := m.null[i]
		for o := m.first[i]; o < m.first[i+1]; o++ {
			best = math.Min(best, m.cost[o])
		}
		minRest[i] = minRest[i+1] + best
	}
	cur := make([]int, n)
	best := make([]int, n)
	for i := range best {
		best[i] = -1
	}
	bestCost := m.total(best)
	rem := append([]float64(nil), m.cap...)
	var dfs func(i int, acc float64)
	dfs = func(i int, acc float64) {
		if acc+minRest[i] >= bestCost-1e-9 {
			return
		}
		if i == n {
			bestCost = acc
			copy(best, cur)
			return
		}
		for o := m.first[i]; o < m.first[i+1]; o++ {
			if m.fits(o, rem) {
				m.take(o, rem, 1)
				cur[i] = o
				dfs(i+1, acc+m.cost[o])
				m.take(o, rem, -1)
			}
		}
		cur[i] = -1
		dfs(i+1, acc+m.null[i])
	}
	dfs(0, 0)
	return best
}

// solveLagrange prices each resource (λ_r per unit of capacity share),
// lets every item pick its cheapest option under the prices, updates the
// prices by projected subgradient steps, and repairs each relaxed choice
// into a feasible one; it returns the best feasible choice found.
func (m *mcmkp) solveLagrange(iters int) ([]int, []float64) {
	n := m.items()
	lambda := make([]float64, m.R)
	relaxed := make([]int, n)
	use := make([]float64, m.R)
	scale := m.costScale()
	var best []int
	bestCost, bestLambda := math.Inf(1), make([]float64, m.R)
	m.bound = math.Inf(-1)
	ws := m.newRepairSpace()
	cur, spare := make([]int, n), make([]int, n) // repair buffers; best holds one of them
	for k := range iters {
		m.bound = math.Max(m.bound, m.priceChoice(lambda, relaxed, use))
		fixed := m.repairInto(cur, relaxed, lambda, ws)
		if c := m.total(fixed); c < bestCost {
			if best != nil {
				spare = best
			}
			best, bestCost, cur = fixed, c, spare
			copy(bestLambda, lambda)
		}
		step := scale / math.Sqrt(float64(k+1))
		moved := false
		for r := range m.R {
			g := -1.0
			if m.cap[r] > 0 {
				g = use[r]/m.cap[r] - 1
			}
			nl := math.Max(0, lambda[r]+step*g)
			moved = moved || nl != lambda[r]
			lambda[r] = nl
		}
		if !moved {
			break // relaxed choice feasible at zero prices: optimal
		}
	}
	return best, bestLambda
}

// costScale is the typical gain of admitting an item, the step unit.
func (m *mcmkp) costScale() float64 {
	var s float64
	var cnt int
	for i := range m.items() {
		for o := m.first[i]; o < m.first[i+1]; o++ {
			if g := m.null[i] - m.cost[o]; g > 0 {
				s += g
				cnt++
			}
		}
	}
	if cnt == 0 {
		return 1
	}
	return s / float64(cnt)
}

// priceChoice sets choice to each item's cheapest option under prices
// lambda, accumulates the resource use, and returns the Lagrangian dual
// value Σ_i min priced cost − Σ_r λ_r (a lower bound on the optimum).
func (m *mcmkp) priceChoice(lambda []float64, choice []int, use []float64) float64 {
	clear(use)
	dual := 0.0
	for _, l := range lambda {
		dual -= l // prices are per unit of capacity share: λ·C/C
	}
	for i := range m.items() {
		best, bestV := -1, m.null[i]
		for o := m.first[i]; o < m.first[i+1]; o++ {
			if v := m.cost[o] + m.price(o, lambda); v < bestV && m.fitsEmpty(o) {
				best, bestV = o, v
			}
		}
		choice[i] = best
		dual += bestV
		if best >= 0 {
			for r := range m.R {
				use[r] += m.q[best*m.R+r]
			}
		}
	}
	return dual
}

// fitsEmpty reports whether option o fits the whole capacity.
func (m *mcmkp) fitsEmpty(o int) bool { return m.fits(o, m.cap) }

// repairSpace is scratch memory repair reuses across iterations.
// The order depends only on the relaxed choice, so it is kept for the
// next iteration (prev, when valid).
type repairSpace struct {
	order []int
	dens  []float64
	rem   []float64
	prev  []int
	valid bool
}

func (m *mcmkp) newRepairSpace() *repairSpace {
	n := m.items()
	return &repairSpace{order: make([]int, n), dens: make([]float64, n), rem: make([]float64, m.R),
		prev: make([]int, n)}
}

// repairOrder sorts items by the gain density of their relaxed choice.
func (m *mcmkp) repairOrder(relaxed []int, ws *repairSpace) []int {
	n := m.items()
	order, dens := ws.order[:n], ws.dens[:n]
	if ws.valid && slices.Equal(ws.prev, relaxed) {
		return order
	}
	copy(ws.prev, relaxed)
	ws.valid = true
	for i := range n {
		order[i] = i
		o := relaxed[i]
		if o < 0 {
			o = m.cheapest(i)
		}
		if o >= 0 {
			dens[i] = (m.null[i] - m.cost[o]) / (m.normWeight(o) + 1e-12)
		} else {
			dens[i] = math.Inf(-1)
		}
		if relaxed[i] < 0 {
			dens[i] -= 1e300 // relaxed-admitted items first
		}
	}
	if slices.ContainsFunc(dens, math.IsNaN) {
		slices.SortStableFunc(order, func(a, b int) int { return lessInt(dens[a] > dens[b]) })
		return order
	}
	// Without NaN, the stable sort's unique result is the order with ties
	// broken by position (order starts as the identity), found faster.
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case dens[a] > dens[b]:
			return -1
		case dens[b] > dens[a]:
			return 1
		}
		return a - b
	})
	return order
}

// cheapest is the item's lowest-cost option, -1 when it has none.
func (m *mcmkp) cheapest(i int) int {
	best := -1
	for o := m.first[i]; o < m.first[i+1]; o++ {
		if best < 0 || m.cost[o] < m.cost[best] {
			best = o
		}
	}
	return best
}

// repairInto turns a relaxed choice into a feasible one, written into
// choice (len items) with scratch space ws: items in order of gain density
// take their relaxed option if it fits, else their best priced option that
// fits and beats null; then admitted items upgrade to cheaper options while
// capacity remains.
func (m *mcmkp) repairInto(choice, relaxed []int, lambda []float64, ws *repairSpace) []int {
	rem := append(ws.rem[:0], m.cap...)
	for _, i := range m.repairOrder(relaxed, ws) {
		choice[i] = -1
		o := relaxed[i]
		if o >= 0 && m.fits(o, rem) {
			choice[i] = o
		} else {
			choice[i] = m.bestFitting(i, rem, lambda)
		}
		if choice[i] >= 0 {
			m.take(choice[i], rem, 1)
		}
	}
	for i, o := range choice {
		if o < 0 {
			continue
		}
		m.take(o, rem, -1)
		choice[i] = m.bestFitting(i, rem, nil)
		if choice[i] < 0 || m.cost[choice[i]] > m.cost[o] {
			choice[i] = o
		}
		m.take(choice[i], rem, 1)
	}
	return choice
}

// bestFitting is the option of item i with the lowest priced cost that
// fits rem and costs less than null; -1 when none.
func (m *mcmkp) bestFitting(i int, rem, lambda []float64) int {
	best, bestV := -1, math.Inf(1)
	for o := m.first[i]; o < m.first[i+1]; o++ {
		if m.cost[o] >= m.null[i] || !m.fits(o, rem) {
			continue
		}
		v := m.cost[o] + m.price(o, lambda)
		if v < bestV {
			best, bestV = o, v
		}
	}
	return best
}

// price is λ·q/cap for option o.
func (m *mcmkp) price(o int, lambda []float64) float64 {
	if lambda == nil {
		return 0
	}
	var p float64
	for r := range m.R {
		if m.cap[r] > 0 {
			p += lambda[r] * m.q[o*m.R+r] / m.cap[r]
		}
	}
	return p
}
