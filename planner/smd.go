package planner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// SMD is the SMD-style planner (algorithms.md A1.4–A1.5): per job a grid
// of (workers, PS) options inside the user's ranges, a multiple-choice
// multi-dimensional knapsack over free GPUs, CPUs, memory and burst-buffer
// capacity with cost ω·T (+ energy and tardiness terms), solved exactly on
// small islands and by Lagrangian relaxation with repair otherwise, then a
// placement check on real nodes and a backfill pass: a decomposition of a
// weighted-completion-time objective into knapsack subproblems, one per
// planning cycle and island (a "sum-of-ratios" reformulation was tried and
// removed: with each option's ratio N/D = its cost it cannot differ from
// the direct solution, docs/planner.md). On Slurm SMD may stop a
// preemptible long job, or restart it narrower, for the short jobs it
// blocks, when the modelled gain exceeds the restart's cost
// (smdpreempt.go); it never touches another running job.
type SMD struct {
	o       Options
	elastic bool // smd-elastic: may resize running jobs (simulation what-if)
	// memo keeps per-job work (hints, model, option grid) across calls;
	// it never changes a plan.
	memo memoSlot
}

var _ Policy = (*SMD)(nil)

func (p *SMD) name() string {
	if p.elastic {
		return "smd-elastic"
	}
	return "smd"
}

// Plan implements Policy.
func (p *SMD) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	return planIslands(ctx, s, &p.o, &p.memo, p.name(), p.planIsland)
}

// smdBufs are SMD's scratch in one island, lent from plan to plan through
// the memo (islandShape): nothing refers to them once a plan is made.
type smdBufs struct {
	wait          []*smdItem  // scheduleWaiting
	keyed         []itemKey   // backfill, sortWaiting (one at a time)
	slots         []queueSlot // queueCosts
	null, cost, q []float64   // knapsack
}

// itemKey is an item with its sort key.
type itemKey struct {
	it  *smdItem
	key float64
}

// queueSlot is an item in queueCosts' list with its best option.
type queueSlot struct {
	it   *smdItem
	best *option
	key  float64
}

// smdItem is a job in the knapsack with its options.
type smdItem struct {
	pl   *planned
	opts []option // options the knapsack may choose (after reservations)
	all  []option // every feasible option
	base int      // index of opts[0] in the knapsack arena
	null float64
	// running marks a running job offered for resizing (smd-elastic).
	running bool
}

func (p *SMD) planIsland(c *cycle, isl *island) []*planned {
	var out []*planned
	// The island's buffers, the slab at its full size first: items point
	// into it.
	items := isl.itemPtrs[:0]
	slab := slices.Grow(isl.items[:0], len(isl.jobs))
	defer func() { isl.items, isl.itemPtrs = slab[:0], items[:0] }()
	s := c.newSMDIsland(isl)
	for _, ji := range isl.jobs {
		pl := c.newPlanned(ji)
		out = append(out, pl)
		opts := c.options(ji, c.s.Now)
		if len(opts) == 0 {
			c.noOption(pl)
			continue
		}
		slab = append(slab, smdItem{pl: pl, opts: opts, all: opts})
		items = append(items, &slab[len(slab)-1])
	}
	if p.elastic && c.o.Reshape {
		run := c.elasticItems(isl)
		items = append(items, run...)
		for _, it := range run {
			out = append(out, it.pl)
		}
	}
	s.relaxLongShare(items)
	s.queueCosts(items)
	for _, it := range items {
		if it.running {
			it.null = mustRun
		}
	}
	s.promoteEarly(items)
	s.reserveForAged(items)
	now := startable(items)
	m := s.knapsack(now)
	choice, _ := m.solve()
	c.resizeRunning(now, m, choice)
	s.admit(now, m, choice)
	s.backfill(now)
	if !c.o.Reshape { // on Slurm: stop or shrink preemptible long jobs when it pays
		out = append(out, s.preemptions(items)...)
	}
	s.scheduleWaiting(items)
	return out
}

// startable are the items Slurm may start now: all but pending jobs whose
// begin time has not come or that wait on a dependency (they are sized and
// ranked by scheduleWaiting only).
func startable(items []*smdItem) []*smdItem {
	out := items
	for k, it := range items {
		if it.pl.ji.notYet > 0 {
			out = make([]*smdItem, 0, len(items))
			out = append(out, items[:k]...)
			for _, it := range items[k:] {
				if it.pl.ji.notYet == 0 {
					out = append(out, it)
				}
			}
			return out
		}
	}
	return out
}

// queueCosts adds the queue to the separable knapsack costs (an exchange
// argument on a WSPT list schedule): jobs are ordered by GPU time per
// weight of their best option; starting job i now delays every other job
// by its GPU time over the island's GPUs (μ_now = (Σω − ω_i)/G per GPU
// second), while waiting delays only the jobs behind it (μ_later) and
// costs i the wait until its WSPT slot (at least one interval, at least
// until running jobs free enough GPUs).
func (s *smdIsland) queueCosts(items []*smdItem) {
	g := float64(max(1, s.totalGPU))
	slots := slices.Grow(s.isl.smd.slots[:0], len(items))[:len(items)]
	defer func() { s.isl.smd.slots = slots[:0] }()
	var wsum float64
	for k, it := range items {
		best := &it.opts[0]
		for k := range it.opts[1:] {
			o := &it.opts[k+1]
			if o.cost+s.mu*s.gpuEq(it.pl.ji, o)*o.dur.Seconds() < best.cost+s.mu*s.gpuEq(it.pl.ji, best)*best.dur.Seconds() {
				best = o
			}
		}
		slots[k] = queueSlot{it, best, s.gpuEq(it.pl.ji, best) * best.dur.Seconds() / it.pl.ji.weight}
		wsum += it.pl.ji.weight
	}
	slices.SortFunc(slots, func(a, b queueSlot) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.it.pl.ji.job.ID, b.it.pl.ji.job.ID)
	})
	var before, gpuTime float64 // weight and GPU seconds ahead in the list
	for _, sl := range slots {
		bestGPU, bestDur := s.gpuEq(sl.it.pl.ji, sl.best), sl.best.dur.Seconds() // read before costs change
		ji := sl.it.pl.ji
		after := wsum - before - ji.weight
		queueWait := gpuTime / g
		sl.it.null = math.Inf(1)
		for k := range sl.it.opts {
			o := &sl.it.opts[k]
			t := s.gpuEq(ji, o) * o.dur.Seconds()
			wait := math.Max(s.o.Interval.Seconds(), math.Max(queueWait, s.waitFor(o.w-s.freeGPU).Seconds()))
			waitCost := ji.weight * wait
			if ji.aged {
				waitCost *= agedFactor
			}
			sl.it.null = math.Min(sl.it.null, o.cost+after*t/g+waitCost)
			o.idleCost = o.cost + after*t/g
			o.cost += (wsum - ji.weight) * t / g
		}
		before += ji.weight
		gpuTime += bestGPU * bestDur
	}
}

// noOption explains a job none of whose shapes the partition can hold.
func (c *cycle) noOption(pl *planned) {
	ji := pl.ji
	r := ReasonNoShapeFits
	if ji.memPerW > 0 {
		if _, ok := c.shapeFor(ji.isl, ji.gmin, ji.cpuPerW, 0); ok {
			r = ReasonMemoryInfeasible
		}
	}
	pl.detail = fmt.Sprintf("partition %s: largest usable node has %d GPUs, %d usable nodes",
		ji.isl.part.Name, ji.isl.maxGPN, len(ji.isl.nodes))
	if ji.gpuMemNeed > 0 {
		r = ReasonMemoryInfeasible
		pl.detail = fmt.Sprintf("one worker needs about %d MiB of GPU memory at batch %d; the GPUs have %d MiB",
			ji.gpuMemNeed, ji.hints.Batch, ji.gpuMemHave)
	}
	pl.reasons = append([]Reason{r}, sizeReasons(ji, pl.w)...)
}

// knapsack builds the MCMKP of the island: resources GPU, CPU, memory and
// one dimension per burst-buffer pool.
func (s *smdIsland) knapsack(items []*smdItem) *mcmkp {
	c := s.cycle
	g, cpu, mem := c.free(s.isl)
	r := 4 + len(c.pools)
	capacity := append([]float64{float64(g), float64(cpu), float64(mem)}, make([]float64, len(c.pools)+1)...)
	capacity[r-1] = float64(min(s.longFree, g))
	for k, f := range c.bbFree {
		capacity[3+k] = float64(f)
	}
	m := newMCMKP(r, capacity)
	n := 0
	for _, it := range items {
		n += len(it.opts)
	}
	b := &s.isl.smd
	m.null = slices.Grow(b.null[:0], len(items))
	m.first = slices.Grow(m.first, len(items))
	m.cost = slices.Grow(b.cost[:0], n)
	m.q = slices.Grow(b.q[:0], n*r)[:n*r] // zero weights; set below, as add would copy them
	clear(m.q)
	defer func() { b.null, b.cost, b.q = m.null[:0], m.cost[:0], m.q[:0] }()
	for _, it := range items {
		it.base = len(m.cost)
		for _, o := range it.opts {
			q := m.q[len(m.cost)*r : (len(m.cost)+1)*r]
			q[0], q[1], q[2] = o.gpu, o.cpu, o.mem
			if it.pl.ji.bbPool >= 0 {
				q[3+it.pl.ji.bbPool] = float64(it.pl.ji.bb)
			}
			if c.isLong(o) && !(it.pl.ji.aged && o.w == narrowest(it.all)) {
				q[r-1] = o.gpu
			}
			m.cost = append(m.cost, o.cost)
		}
		m.null = append(m.null, it.null)
		m.first = append(m.first, len(m.cost))
	}
	return m
}

// admit places the knapsack's admitted jobs in order of weighted duration,
// falling back to the job's other options when fragmentation prevents the
// chosen shape.
func (s *smdIsland) admit(items []*smdItem, m *mcmkp, choice []int) {
	var idx []int
	for i, o := range choice {
		if o >= 0 && !items[i].running {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := items[a], items[b]
		return lessInt(m.cost[choice[a]]/x.pl.ji.weight < m.cost[choice[b]]/y.pl.ji.weight)
	})
	for _, i := range idx {
		it := items[i]
		s.tryStart(it, it.opts[choice[i]-m.first[i]], false)
	}
}

// backfill starts waiting jobs on capacity the knapsack left idle,
// shortest weighted first, when starting now beats waiting for the job
// itself (idleCost < null); the aged reservation still applies.
func (s *smdIsland) backfill(items []*smdItem) {
	wait := s.isl.smd.keyed[:0]
	for _, it := range items {
		if !it.pl.start && !it.running {
			wait = append(wait, itemKey{it, minCost(it)})
		}
	}
	defer func() { s.isl.smd.keyed = wait[:0] }()
	slices.SortStableFunc(wait, func(a, b itemKey) int { return lessInt(a.key < b.key) })
	if len(wait) == 0 {
		return
	}
	total, most := s.freeShape(s.isl)
	for _, w := range wait {
		it := w.it
		if total == 0 {
			return
		}
		if !anyFits(it.opts, total, most) {
			continue
		}
		if s.tryStart(it, option{w: -1}, true) {
			total, most = s.freeShape(s.isl)
		}
	}
}

func minCost(it *smdItem) float64 {
	best := math.Inf(1)
	for _, o := range it.opts {
		best = math.Min(best, o.cost/it.pl.ji.weight)
	}
	return best
}

// freeShape is the island's free GPUs and the most free GPUs on one node.
func (c *cycle) freeShape(isl *island) (total, most int) {
	for _, i := range isl.nodes {
		total += c.nodes[i].freeGPU
		most = max(most, c.nodes[i].freeGPU)
	}
	return total, most
}

// anyFits reports whether some option could fit the free GPUs at all.
func anyFits(opts []option, total, most int) bool {
	for _, o := range opts {
		if o.w <= total && o.sh.gpn <= most {
			return true
		}
	}
	return false
}

// isLong reports whether an option counts against the long-job share.
func (c *cycle) isLong(o option) bool { return c.longRun(o.dur) }

// longRun says whether a run of d is long (Options.LongJob): the long-job
// share, and the begin time of a long job the plan holds back
// (deferWaiting).
func (c *cycle) longRun(d time.Duration) bool { return d > c.o.LongJob }

// narrowest is the smallest worker count among the options: an aged job
// may always start at that size, whatever the long-job share.
func narrowest(opts []option) int {
	w := math.MaxInt
	for _, o := range opts {
		w = min(w, o.w)
	}
	return w
}
