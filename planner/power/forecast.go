package power

import (
	"fmt"
	"strconv"
	"strings"
)

// Forecaster predicts a busy-node series: given the values up to now
// (past[len(past)-1] is the current interval) it returns the next h
// values. It must not keep state between calls.
type Forecaster interface {
	Forecast(past []float64, h int) []float64
	// Name describes the forecaster (for reports).
	Name() string
}

// RecentMax forecasts the maximum of the last Window intervals for every
// future interval: flat, never below the recent peak. With RuleMargin it
// gives "the recent maximum plus a margin". Window < 1 means 1.
type RecentMax struct{ Window int }

// Forecast implements Forecaster.
func (f RecentMax) Forecast(past []float64, h int) []float64 {
	m := maxOf(past[max(0, len(past)-max(f.Window, 1)):])
	out := make([]float64, h)
	for i := range out {
		out[i] = m
	}
	return out
}

// Name implements Forecaster.
func (f RecentMax) Name() string { return "recent-max:" + strconv.Itoa(max(f.Window, 1)) }

// DefaultForecaster is RecentMax over 6 hours of 10-minute intervals.
func DefaultForecaster() Forecaster { return RecentMax{Window: 36} }

// Seasonal forecasts the same time one Period earlier (a day of 10-minute
// intervals: 144), shifted by how much the present differs from that time:
// x̂[t+k] = x[t+k−P] + (x[t] − x[t−P]). It follows the daily cycle that
// dominates the Helios and Philly series. While less than one period of
// history exists it repeats the last value.
type Seasonal struct{ Period int }

// Forecast implements Forecaster.
func (f Seasonal) Forecast(past []float64, h int) []float64 {
	out := make([]float64, h)
	n := len(past)
	now := past[n-1]
	p := f.Period
	for k := 1; k <= h; k++ {
		v := now
		if p > 0 && n-1-p >= 0 {
			// x[t+k-P]: from the past while t+k-P <= t, else from the
			// forecast itself (h > P).
			if j := n - 1 + k - p; j <= n-1 {
				v = past[j] + now - past[n-1-p]
			} else {
				v = out[k-1-p]
			}
		}
		out[k-1] = max(v, 0)
	}
	return out
}

// Name implements Forecaster.
func (f Seasonal) Name() string { return "seasonal:" + strconv.Itoa(f.Period) }

// Oracle "forecasts" the true future of Series: an upper bound on what any
// forecaster could do, for validation only. Past must be a prefix of
// Series; beyond its end the last value repeats.
type Oracle struct{ Series []float64 }

// Forecast implements Forecaster.
func (f Oracle) Forecast(past []float64, h int) []float64 {
	out := make([]float64, h)
	last := past[len(past)-1]
	for k := range out {
		if j := len(past) + k; j < len(f.Series) {
			last = f.Series[j]
		}
		out[k] = last
	}
	return out
}

// Name implements Forecaster.
func (Oracle) Name() string { return "oracle" }

// ParseForecaster reads a forecaster's name: recent-max[:WINDOW],
// seasonal[:PERIOD] (intervals; defaults 36 and 144), or oracle (which
// needs the whole series: busy).
func ParseForecaster(s string, busy []float64) (Forecaster, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	n := 0
	if hasArg {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("forecaster %q: %q is not a positive number of intervals", s, arg)
		}
		n = v
	}
	switch name {
	case "recent-max":
		if n == 0 {
			return DefaultForecaster(), nil
		}
		return RecentMax{Window: n}, nil
	case "seasonal":
		if n == 0 {
			n = 144
		}
		return Seasonal{Period: n}, nil
	case "oracle":
		if hasArg {
			return nil, fmt.Errorf("forecaster %q: oracle takes no argument", s)
		}
		return Oracle{Series: busy}, nil
	}
	return nil, fmt.Errorf("forecaster %q: choose recent-max[:N], seasonal[:N] or oracle", s)
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
