package planner

import "math"

// Sum-of-ratios iteration (algorithms.md A1.3, after Jong 2012). Each
// option's cost is written as a ratio N_o/D_o with D_o = workers × max(1,
// PS) (the resources bought) and N_o = cost × D_o; the null option has
// D = 1. For parameters (β, u) the subtractive problem
// min Σ_i u_i (N_i(x) − β_i D_i(x)) is the same knapsack with other costs;
// a damped Newton step drives the residuals ψ to zero.
const (
	ratioMaxIter = 30
	ratioEps     = 1e-9
	ratioXi      = 0.5
	ratioSigma   = 0.1
)

// ratioState is the parameter vector (β, u).
type ratioState struct{ beta, u []float64 }

// solveRatio runs the sum-of-ratios iteration from a greedy feasible start
// (A1.5 step 1) and returns the best feasible choice it visited (by the
// true objective) and the number of Newton iterations.
func (m *mcmkp) solveRatio(den []float64) ([]int, int) {
	none := make([]int, m.items())
	for i := range none {
		none[i] = -1
	}
	return m.solveRatioFrom(m.repair(none, nil), den)
}

// solveRatioFrom runs the iteration from the feasible choice x.
func (m *mcmkp) solveRatioFrom(x []int, den []float64) ([]int, int) {
	best, bestCost := x, m.total(x)
	st := m.ratioParams(x, den)
	iters := 0
	for ; iters < ratioMaxIter; iters++ {
		xn := m.subtractive(st, den)
		psi := m.residual(st, xn, den)
		if c := m.total(xn); c < bestCost-1e-12 {
			best, bestCost = xn, c
		}
		if psi <= ratioEps {
			break
		}
		target := m.ratioParams(xn, den)
		lam := 1.0
		var next ratioState
		for k := 0; k < 4; k++ { // back-tracking on the step length
			next = blend(st, target, lam)
			if m.residual(next, m.subtractive(next, den), den) <= (1-ratioSigma*lam)*psi {
				break
			}
			lam *= ratioXi
		}
		st = next
	}
	return best, iters
}

// ratioParams returns β_i = N_i/D_i and u_i = 1/D_i at choice x.
func (m *mcmkp) ratioParams(x []int, den []float64) ratioState {
	st := ratioState{beta: make([]float64, len(x)), u: make([]float64, len(x))}
	for i, o := range x {
		n, d := m.ratio(i, o, den)
		st.beta[i], st.u[i] = n/d, 1/d
	}
	return st
}

// ratio returns (N, D) of item i's choice o.
func (m *mcmkp) ratio(i, o int, den []float64) (float64, float64) {
	if o < 0 {
		return m.null[i], 1
	}
	return m.cost[o] * den[o], den[o]
}

// subtractive solves min Σ u_i (N − β_i D) over the same constraints.
func (m *mcmkp) subtractive(st ratioState, den []float64) []int {
	in := &mcmkp{R: m.R, cap: m.cap, first: m.first, q: m.q,
		null: make([]float64, len(m.null)), cost: make([]float64, len(m.cost))}
	for i := range m.items() {
		in.null[i] = st.u[i] * (m.null[i] - st.beta[i])
		for o := m.first[i]; o < m.first[i+1]; o++ {
			in.cost[o] = st.u[i] * (m.cost[o]*den[o] - st.beta[i]*den[o])
		}
	}
	x, _ := in.solve()
	return x
}

// residual is ‖ψ‖ with ψ_i = β_i D_i − N_i and ψ_{n+i} = u_i D_i − 1.
func (m *mcmkp) residual(st ratioState, x []int, den []float64) float64 {
	var s float64
	for i, o := range x {
		n, d := m.ratio(i, o, den)
		a, b := st.beta[i]*d-n, st.u[i]*d-1
		s += a*a + b*b
	}
	return math.Sqrt(s)
}

func blend(a, b ratioState, lam float64) ratioState {
	out := ratioState{beta: make([]float64, len(a.beta)), u: make([]float64, len(a.u))}
	for i := range a.beta {
		out.beta[i] = a.beta[i] + lam*(b.beta[i]-a.beta[i])
		out.u[i] = a.u[i] + lam*(b.u[i]-a.u[i])
	}
	return out
}
