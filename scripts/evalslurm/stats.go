package main

import (
	"math"
	"sort"
)

// ranks gives each value its rank from 1, ties the average of the ranks
// they span (as Spearman's coefficient needs).
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		k := i
		for k+1 < len(idx) && v[idx[k+1]] == v[idx[i]] {
			k++
		}
		avg := float64(i+k)/2 + 1
		for m := i; m <= k; m++ {
			r[idx[m]] = avg
		}
		i = k + 1
	}
	return r
}

// pearson is the correlation coefficient of x and y (NaN when either is
// constant or they differ in length or have fewer than 2 values).
func pearson(x, y []float64) float64 {
	n := len(x)
	if n != len(y) || n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// spearman is Spearman's rank correlation of x and y: Pearson's
// coefficient of their ranks (ties averaged).
func spearman(x, y []float64) float64 {
	return pearson(ranks(x), ranks(y))
}

// mean of v (NaN when empty).
func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// span is max(ends) − min(starts): a makespan.
func span(starts, ends []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range starts {
		lo = min(lo, s)
	}
	for _, e := range ends {
		hi = max(hi, e)
	}
	return hi - lo
}

// median of v (NaN when empty).
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
