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
		p.release(s.at, s.gpus)
	}
	return p
}

// release adds gpus freed at t, at or after the profile's last step.
func (p *gpuProfile) release(t float64, gpus int) {
	last := len(p.at) - 1
	if t == p.at[last] {
		p.free[last] += gpus
		return
	}
	p.at = append(p.at, t)
	p.free = append(p.free, p.free[last]+gpus)
}

// newProfileSorted is newProfile(freeNow, sorted + extra) for releases
// sorted by time and a few more in any order (extra, which it sorts): the
// profile is a function of the releases alone (those at one time add up,
// in any order), so merging the two lists builds the same steps
// (TestNewProfileSorted) without sorting the running jobs again. spare is
// room for the steps reservations will add (two each), so that they
// do not grow the profile. The profile is built in dst's buffers when dst
// is not nil (and is then dst).
func newProfileSorted(dst *gpuProfile, freeNow int, sorted, extra []release, spare int) *gpuProfile {
	slices.SortFunc(extra, byAfter)
	n := len(sorted) + len(extra) + spare
	p := dst
	if p == nil {
		p = &gpuProfile{}
	}
	p.at = append(slices.Grow(p.at[:0], n+1), 0)
	p.free = append(slices.Grow(p.free[:0], n+1), freeNow)
	i, k := 0, 0
	for i < len(sorted) || k < len(extra) {
		var r release
		if k == len(extra) || i < len(sorted) && sorted[i].after <= extra[k].after {
			r, i = sorted[i], i+1
		} else {
			r, k = extra[k], k+1
		}
		p.release(max(0, r.after.Seconds()), r.gpus)
	}
	return p
}

func byAfter(a, b release) int { return cmp.Compare(a.after, b.after) }

// runningByEnd lists the island's running jobs by their predicted end
// (jobInfo.left, whether or not they are leaving now), sorted once per
// cycle.
func (c *cycle) runningByEnd(isl *island) []*jobInfo {
	if !isl.byEndOK {
		isl.byEnd = append(isl.byEnd[:0], isl.running...)
		slices.SortFunc(isl.byEnd, func(a, b *jobInfo) int { return cmp.Compare(a.left, b.left) })
		isl.byEndOK = true
	}
	return isl.byEnd
}

// runningReleases appends to dst the releases of the island's running
// jobs that keep accepts (nil: all), each at runningEnd as it is now (a
// leaving job's GPUs one interval from now), with its requested GPUs,
// sorted by time.
func (c *cycle) runningReleases(dst []release, isl *island, keep func(*jobInfo) bool) []release {
	var leaving []release
	for _, ji := range c.runningByEnd(isl) {
		if keep != nil && !keep(ji) {
			continue
		}
		if ji.leaving {
			leaving = append(leaving, release{c.runningLeft(ji), ji.req})
			continue
		}
		dst = append(dst, release{ji.left, ji.req}) // runningEnd − Now
	}
	for _, r := range leaving { // few: each into its place
		k, _ := slices.BinarySearchFunc(dst, r, byAfter)
		dst = slices.Insert(dst, k, r)
	}
	return dst
}

// split makes t a breakpoint and returns its index.
func (p *gpuProfile) split(t float64) int {
	k := p.stepAt(t)
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
	at := p.at
	free := p.free[:len(at)]
	last := len(at) - 1
	start := from
	k := p.stepAt(from)
	for ; k < last; k++ {
		if free[k] < w {
			start = at[k+1]
			continue
		}
		if at[k+1] >= start+d {
			return start, true
		}
	}
	// the last step lasts forever
	if free[last] < w {
		return 0, false
	}
	return start, true
}

// reserve takes w GPUs on [t, t+d).
func (p *gpuProfile) reserve(w int, t, d float64) { p.add(t, t+d, -w) }

// stepAt is the index of the step that holds t: the last breakpoint at
// or before t (0 when t is before every breakpoint but the first).
func (p *gpuProfile) stepAt(t float64) int {
	// the first breakpoint after t, by binary search (the breakpoints
	// ascend), less one
	lo, hi := 1, len(p.at)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.at[m] > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}
