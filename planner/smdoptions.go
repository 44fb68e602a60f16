package planner

import (
	"math"
	"slices"
	"sort"
	"time"
)

// option is one (workers, PS) choice of a job with its shape, predicted
// duration, cost and resource demand.
type option struct {
	w, p      int
	sh        shape
	dur       time.Duration
	durReason Reason
	cost      float64
	idleCost  float64 // cost when it takes only capacity nobody else can use now
	gpu, cpu  float64
	mem       float64 // MB
}

// workerGrid is the capped set of worker counts SMD considers: the range
// ends, powers of two, whole-node multiples (and the request) inside
// [gmin, gmax]; at most limit values, keeping the ends.
func workerGrid(ji *jobInfo, nodeGPUs, limit int) []int {
	if ji.fixed {
		return []int{ji.req}
	}
	set := []int{ji.gmin, ji.gmax}
	if ji.req >= ji.gmin && ji.req <= ji.gmax {
		set = append(set, ji.req)
	}
	for w := 1; w <= ji.gmax; w *= 2 {
		if w > ji.gmin {
			set = append(set, w)
		}
	}
	for k := 1; nodeGPUs > 0 && k*nodeGPUs <= ji.gmax && k <= 16; k++ {
		if k*nodeGPUs > ji.gmin {
			set = append(set, k*nodeGPUs)
		}
	}
	sort.Ints(set)
	set = slices.Compact(set)
	return thin(set, limit)
}

// psGrid is the PS counts considered for w workers.
func psGrid(ji *jobInfo, w int) []int {
	if ji.pmax == 0 {
		return []int{0}
	}
	if ji.psPerW {
		return []int{w}
	}
	var set []int
	if ji.psAuto {
		set = []int{1, max(1, w/4), max(1, w/2), w}
	} else {
		set = []int{ji.pmin, ji.pmax}
		for p := 1; p < ji.pmax; p *= 2 {
			if p > ji.pmin {
				set = append(set, p)
			}
		}
	}
	sort.Ints(set)
	return thin(slices.Compact(set), 4)
}

// thin keeps at most n values of a sorted set, always the first and last.
func thin(set []int, n int) []int {
	if len(set) <= n || n < 2 {
		return set
	}
	out := make([]int, 0, n)
	for k := range n {
		out = append(out, set[k*(len(set)-1)/(n-1)])
	}
	return slices.Compact(out)
}

// options enumerates the job's feasible options. Options whose modelled
// duration exceeds the time limit (Slurm would kill the job) are dropped
// unless none is left; dominated options (no faster, no smaller) too.
func (c *cycle) options(ji *jobInfo, now time.Time) []option {
	if ji.gpuMemNeed > 0 {
		return nil
	}
	var out []option
	left := c.workLeft(ji) // < 1: a restarted job, its durations cover what is left
	if e := ji.memo; e != nil && e.optsOK && left == 1 {
		out = append(c.optTmp[:0], e.opts...)
	} else {
		var grid []option
		if e != nil && e.gridOK {
			grid = e.grid
		} else {
			grid = c.gridOptions(ji)
			if e != nil {
				e.grid, e.gridOK = grid, true
			}
		}
		out = c.timedOptions(ji, grid, c.optTmp[:0], left)
		if e != nil && left == 1 && c.cacheable(out) {
			e.opts, e.optsOK = append([]option(nil), out...), true
		}
	}
	c.optTmp = out
	for k := range out {
		out[k].cost = c.optionCost(ji, &out[k], now)
	}
	return c.pruneToSlab(out)
}

// pruneToSlab drops options that another option beats on duration without
// using more GPUs, CPUs or memory, with the result in the cycle's option slab (capped,
// so appending to it copies).
func (c *cycle) pruneToSlab(os []option) []option {
	if cap(c.optSlab)-len(c.optSlab) < len(os) {
		c.optSlab = make([]option, 0, max(64, 2*cap(c.optSlab), len(os)))
	}
	start := len(c.optSlab)
	for i := range os {
		if !dominated(os, i) {
			c.optSlab = append(c.optSlab, os[i])
		}
	}
	end := len(c.optSlab)
	if end == start {
		return nil
	}
	return c.optSlab[start:end:end]
}

// cacheable reports whether options may be memoised: their durations do
// not come from a Predictor whose answers may change between calls.
func (c *cycle) cacheable(opts []option) bool {
	if c.stablePred {
		return true
	}
	for _, o := range opts {
		if o.durReason != ReasonModelled {
			return false
		}
	}
	return true
}

// gridOptions is the job's placeable (workers, PS) choices with their
// shapes and resource demand, before durations.
func (c *cycle) gridOptions(ji *jobInfo) []option {
	isl := ji.isl
	var out []option
	for _, w := range workerGrid(ji, isl.maxGPN, c.o.MaxOptionsPerJob) {
		var sh shape
		var ok bool
		if ji.fixed {
			sh, ok = c.jobShape(ji)
		} else {
			sh, ok = c.shapeFor(isl, w, ji.cpuPerW, ji.memPerW)
		}
		if !ok || (ji.model.kind == kindCurve && !curveCovers(ji.model.curve, w)) {
			continue
		}
		last := -1
		for _, p := range psGrid(ji, w) {
			ps, p, ok := c.withServers(ji, sh, p)
			if !ok || p == last { // rounded onto the count before
				continue
			}
			last = p
			o := option{w: w, p: p, sh: ps, gpu: float64(w),
				cpu: float64(cpuNeed(ji.cpuPerW, w) + p*max(1, cpuNeed(ji.cpuPerW, 1))),
				mem: float64(ji.memPerW * int64(w))}
			if ps.spn > 0 { // servers as tasks: what is written is charged
				cpu, mem := ps.perNode(ji.cpuPerW, ji.memPerW)
				o.cpu, o.mem = float64(cpu*ps.nodes), float64(mem*int64(ps.nodes))
			}
			out = append(out, o)
		}
	}
	return out
}

// timedOptions appends the grid's options with their durations (for the
// fraction left of the work) to dst, filtered by the time limit.
func (c *cycle) timedOptions(ji *jobInfo, grid, dst []option, left float64) []option {
	out := dst
	for _, o := range grid {
		o.dur, o.durReason = c.durationAt(ji, o.w, o.p)
		if left < 1 {
			o.dur = seconds(o.dur.Seconds() * left)
		}
		out = append(out, o)
	}
	out = out[:len(dst)+len(keepRequest(c.o, ji, out[len(dst):], func(o option) int { return o.w }))]
	if tl := ji.job.TimeLimit; tl > 0 && len(out) > 1 {
		kept := out[:0] // in place: writes never pass the read position
		for _, o := range out {
			if fitsLimit(ji, o.w, o.dur) {
				kept = append(kept, o)
			}
		}
		if len(kept) == 0 { // every size outruns the limit: the fastest, planned to end at the limit
			f := fastest(out)
			if ji.job.State == JobPending {
				f.dur = capAtLimit(ji.job, f.dur)
			}
			kept = append(kept, f)
		}
		out = kept
	}
	return out
}

func curveCovers(cv *ScalingCurve, w int) bool {
	_, ok := cv.stepSeconds(w)
	return ok
}

func fastest(os []option) option {
	best := os[0]
	for _, o := range os[1:] {
		if o.dur < best.dur {
			best = o
		}
	}
	return best
}

// optionCost is ω·T + λ_E·energy (kWh at GPUWatts per GPU, or the GPU
// type's measured power from Snapshot.Calibration, scaled by the
// energy= preference) + λ_T·ω·tardiness (s).
func (c *cycle) optionCost(ji *jobInfo, o *option, now time.Time) float64 {
	t := o.dur.Seconds()
	cost := ji.weight * t
	if c.o.EnergyWeight > 0 {
		kwh := t / 3600 * float64(o.w) * c.gpuWatts(ji) / 1000
		cost += c.o.EnergyWeight * energyScale(ji.hints.Energy) * kwh
	}
	if c.o.TardinessWeight > 0 && !ji.deadline.IsZero() {
		late := now.Add(o.dur).Sub(ji.deadline).Seconds()
		cost += c.o.TardinessWeight * ji.weight * math.Max(0, late)
	}
	if ji.aged {
		cost *= agedFactor
	}
	return cost
}

// agedFactor scales the costs of aged jobs so the knapsack serves them
// first when they fit.
const agedFactor = 1000

func energyScale(e EnergyPref) float64 {
	switch e {
	case EnergyMin:
		return 2
	case EnergyTime:
		return 0
	}
	return 1
}

// dominated (used by pruneToSlab) reports whether another option beats os[i] (ties: the
// earlier one is kept).
func dominated(os []option, i int) bool {
	a := &os[i]
	for k := range os {
		if k == i {
			continue
		}
		b := &os[k]
		better := b.cost <= a.cost && b.gpu <= a.gpu && b.cpu <= a.cpu && b.mem <= a.mem
		strictly := b.cost < a.cost || b.gpu < a.gpu || b.cpu < a.cpu || b.mem < a.mem
		if better && (strictly || k < i) {
			return true
		}
	}
	return false
}
