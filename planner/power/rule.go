package power

import "math"

// fleet is the power state of a group of interchangeable nodes.
type fleet struct {
	ready   int    // powered and booted: can run jobs
	booting []boot // woken, not yet serving
	// frozenUntil: no power-down before this interval (Keep after a wake).
	frozenUntil int
}

type boot struct{ at, n int }

func (f *fleet) powered() int {
	n := f.ready
	for _, b := range f.booting {
		n += b.n
	}
	return n
}

// promote makes the nodes whose boot ends by interval i ready.
func (f *fleet) promote(i int) {
	keep := f.booting[:0]
	for _, b := range f.booting {
		if b.at <= i {
			f.ready += b.n
		} else {
			keep = append(keep, b)
		}
	}
	f.booting = keep
}

// clip powers nodes off the books when the cluster shrank to total.
func (f *fleet) clip(total int) {
	for f.powered() > total {
		if n := len(f.booting); n > 0 {
			cut := min(f.booting[n-1].n, f.powered()-total)
			f.booting[n-1].n -= cut
			if f.booting[n-1].n == 0 {
				f.booting = f.booting[:n-1]
			}
			continue
		}
		f.ready = total
	}
}

// decision is what the rule wants at one interval.
type decision struct {
	target   int     // nodes the rule wants powered
	forecast float64 // the forecast figure the rule used
	wake     int     // nodes to power up
	down     int     // nodes to power down
}

// decide applies cfg's rule at interval i of busy (busy[i] is now) to f,
// which holds the state at the start of i (boots promoted): the target and,
// from it, the nodes to wake or to power down (those idle for SuspendTime,
// at least MinDecrease of them). total is the number of nodes.
func decide(cfg Config, f *fleet, busy []float64, i, total int, fc Forecaster) decision {
	d := target(cfg, f, busy, i, total, fc.Forecast(busy[:i+1], cfg.lookahead()))
	powered := f.powered()
	switch {
	case d.target > powered:
		d.wake = d.target - powered
	case d.target < powered:
		d.down = cutDown(cfg, powered-d.target, f.idleFor(busy, i, cfg.steps(cfg.SuspendTime)))
	}
	return d
}

// target is the number of nodes cfg's rule wants powered at interval i,
// given the forecast pred of the intervals after i.
func target(cfg Config, f *fleet, busy []float64, i, total int, pred []float64) decision {
	u := busy[i]
	powered := f.powered()
	var d decision
	switch cfg.Rule {
	case RuleHelios:
		d.forecast = meanOf(pred[:cfg.Future])
		d.target = powered
		if float64(powered) < u {
			d.target = min(total, ceilInt(u)+cfg.Buffer)
			break
		}
		if i < cfg.History || i < f.frozenUntil {
			break
		}
		histTrend := meanOf(busy[i-cfg.History:i]) - u
		futTrend := u - d.forecast
		rising := d.forecast < meanOf(pred[:2*cfg.Future])
		if histTrend >= cfg.HistThreshold && futTrend >= cfg.FutThreshold && !rising {
			d.target = min(powered, ceilInt(u)+cfg.Buffer)
		}
	default: // RuleMargin
		d.forecast = max(u, maxOf(pred[:max(cfg.Horizon, 1)]))
		d.target = min(total, ceilInt(d.forecast)+cfg.Buffer)
		if d.target < powered && i < f.frozenUntil {
			d.target = powered
		}
	}
	return d
}

// cutDown is how many of want nodes to power down when only idle of them
// qualify: none when fewer than MinDecrease would go.
func cutDown(cfg Config, want, idle int) int {
	n := min(want, idle)
	if n < max(cfg.MinDecrease, 1) {
		return 0
	}
	return n
}

// idleFor is how many ready nodes have been idle for the last s intervals
// (at least the current one): ready − the peak of busy over them.
func (f *fleet) idleFor(busy []float64, i, s int) int {
	peak := maxOf(busy[max(0, i-max(s, 1)+1) : i+1])
	return max(0, f.ready-ceilInt(peak))
}

// apply carries out d at interval i: powered-down nodes stop at once, woken
// ones serve after resume intervals (0: at once).
func (f *fleet) apply(d decision, i, resume, keep int) {
	f.ready -= d.down
	if d.wake > 0 {
		f.frozenUntil = i + keep
		if resume == 0 {
			f.ready += d.wake
		} else {
			f.booting = append(f.booting, boot{at: i + resume, n: d.wake})
		}
	}
}

func ceilInt(x float64) int { return int(math.Ceil(x - 1e-9)) }
