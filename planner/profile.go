package planner

import (
	"cmp"
	"math"
	"slices"
)

// gpuProfile is an island's free GPUs over time, a step function: free[k]
// GPUs from at[k] (seconds after Now) until at[k+1]; the last step lasts
// forever. It starts from the GPUs free now plus the predicted releases of
// running and starting jobs; reservations take GPUs out of it. Node shapes
// are ignored (aggregate GPUs), as in predictStarts.
type gpuProfile struct {
	at   []float64
	free []int
}

// newProfile builds the profile of free GPUs now and of releases (seconds
// after Now, GPUs freed then), in any order.
//
// It is the profile that adding each release in turn (add(t, +Inf, gpus))
// builds, made in one pass over the releases by time instead of a split
// and a walk per release (TestNewProfileAsAdded).
func newProfile(freeNow int, releases []release) *gpuProfile {
	type step struct {
		at   float64
		gpus int
	}
	steps := make([]step, len(releases))
	for k, r := range releases {
		steps[k] = step{max(0, r.after.Seconds()), r.gpus}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	p := &gpuProfile{at: make([]float64, 1, len(steps)+1), free: make([]int, 1, len(steps)+1)}
	p.free[0] = freeNow
	for _, s := range steps {
		last := len(p.at) - 1
		if s.at == p.at[last] {
			p.free[last] += s.gpus
			continue
		}
		p.at = append(p.at, s.at)
		p.free = append(p.free, p.free[last]+s.gpus)
	}
	return p
}

// split makes t a breakpoint and returns its index.
func (p *gpuProfile) split(t float64) int {
	k := len(p.at) - 1
	for k > 0 && p.at[k] > t {
		k--
	}
	if p.at[k] == t {
		return k
	}
	p.at = append(p.at, 0)
	p.free = append(p.free, 0)
	copy(p.at[k+2:], p.at[k+1:])
	copy(p.free[k+2:], p.free[k+1:])
	p.at[k+1], p.free[k+1] = t, p.free[k]
	return k + 1
}

// add adds n GPUs (negative: takes them) on [from, to).
func (p *gpuProfile) add(from, to float64, n int) {
	k := p.split(from)
	end := len(p.at)
	if !math.IsInf(to, 1) {
		end = p.split(to)
	}
	for ; k < end; k++ {
		p.free[k] += n
	}
}

// earliest is the earliest start at or after from at which w GPUs stay
// free for d seconds; false when that never happens.
func (p *gpuProfile) earliest(w int, d, from float64) (float64, bool) {
	k := len(p.at) - 1
	for k > 0 && p.at[k] > from {
		k--
	}
	start := from
	for ; k < len(p.at); k++ {
		last := k == len(p.at)-1
		if p.free[k] < w {
			if last {
				return 0, false
			}
			start = p.at[k+1]
			continue
		}
		if last || p.at[k+1] >= start+d {
			return start, true
		}
	}
	return 0, false
}

// reserve takes w GPUs on [t, t+d).
func (p *gpuProfile) reserve(w int, t, d float64) { p.add(t, t+d, -w) }
