package sim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// bfPlan is one backfill cycle's view of the future: when each node's GPUs
// come free if running jobs end at their time limits (not their real
// ends, which Slurm does not know), and the whole-node reservations made
// for blocked jobs. It is rebuilt every cycle, as Slurm does (in the
// previous cycle's buffers).
type bfPlan struct {
	now  float64
	free []int // free GPUs per node now
	// cpu and mem are the free CPUs and memory (MB) per node now; need is
	// what a job takes besides g GPUs on a node (cluster.needOf).
	cpu  []int
	mem  []int64
	need func(owner, g int) (int, int64)
	// times are the distinct release times, ascending.
	times []float64
	// resv[n] are node n's reserved intervals.
	resv [][2]float64
	cap  int // GPUs per node
	// skip, when set, marks the nodes outside the partition being tried.
	skip []bool
	// events are every node's releases (time, GPUs), by time.
	events []bfEvent
	// owner, at, needs, cands, next (the first event not in at), wide and
	// sum (startFit) are fit's working state.
	owner     int
	next      int
	wide, sum int
	// wideSet marks the nodes counted in wide (a bit per node), so that
	// fitAt visits only those when they are all it may take (per ≥ 1).
	wideSet []uint64
	at      []bfFree
	needs   []bfNeed
	cands   []bfCand
	// order is the running jobs by time limit, kept from one cycle to the
	// next (byLimit); mark and stamp tell the jobs running now and those
	// already in order apart.
	order []bfJob
	mark  []uint64
	stamp uint64
}

// bfJob is a running job (index i) whose time limit ends at kill.
type bfJob struct {
	kill float64
	i    int
}

type bfRelease struct {
	at   float64
	gpus int
	cpus int
	mem  int64
}

// newBFPlan starts a backfill cycle at t, in the buffers of the engine's
// previous one (nothing keeps a plan after its cycle).
func (e *engine) newBFPlan(t float64) *bfPlan {
	n := len(e.cl.nodes)
	p := e.bf
	if p == nil {
		p = &bfPlan{free: make([]int, n), resv: make([][2]float64, n), cpu: make([]int, n), mem: make([]int64, n)}
		e.bf = p
	}
	p.now, p.cap, p.need, p.skip = t, e.cl.spec.GPUsPerNode, e.cl.needOf, nil
	p.events, p.times = p.events[:0], p.times[:0]
	p.refresh(e.cl)
	for n := range e.cl.nodes {
		p.resv[n] = [2]float64{math.Inf(1), math.Inf(1)}
	}
	for _, o := range p.byLimit(e) {
		p.addRunning(&e.jobs[o.i])
	}
	p.listTimes()
	return p
}

// byLimit is the running jobs by the end of their time limits: the order
// of the previous cycle, less the jobs no longer running (or whose limit
// moved), merged with the jobs started since, sorted. The releases are
// then added in time order, with no sort of every node's releases each
// cycle; at one time, their order does not matter (listTimes).
func (p *bfPlan) byLimit(e *engine) []bfJob {
	if len(p.mark) != len(e.jobs) {
		p.mark, p.order = make([]uint64, len(e.jobs)), p.order[:0]
	}
	p.stamp += 2
	run, kept := p.stamp, p.stamp+1
	for _, i := range e.running {
		p.mark[i] = run
	}
	order := p.order[:0]
	for _, o := range p.order {
		if p.mark[o.i] == run && e.jobs[o.i].killAt == o.kill {
			p.mark[o.i] = kept
			order = append(order, o)
		}
	}
	var fresh []bfJob
	for _, i := range e.running {
		if p.mark[i] == run {
			p.mark[i] = kept
			fresh = append(fresh, bfJob{e.jobs[i].killAt, i})
		}
	}
	byKill := func(a, b bfJob) int { return cmp.Compare(a.kill, b.kill) }
	slices.SortFunc(fresh, byKill)
	for _, o := range fresh { // few: each into its place
		k, _ := slices.BinarySearchFunc(order, o, byKill)
		order = slices.Insert(order, k, o)
	}
	p.order = order
	return order
}

// addRunning records when a running job's GPUs come free by its limit (a
// job already past it is assumed to end now).
func (p *bfPlan) addRunning(j *job) {
	end := max(j.killAt, p.now)
	for _, s := range j.slots {
		p.events = append(p.events, bfEvent{bfRelease{end, len(s.idx), s.cpus, s.mem}, s.node})
	}
}

// insertRunning adds a job started in this cycle to the releases (in
// time order: its own at the end of those at its time) and their times.
func (p *bfPlan) insertRunning(j *job) {
	end := max(j.killAt, p.now)
	k, _ := slices.BinarySearchFunc(p.events, end, func(ev bfEvent, t float64) int {
		if ev.at <= t {
			return -1
		}
		return 1
	})
	for _, sl := range j.slots {
		p.events = slices.Insert(p.events, k, bfEvent{bfRelease{end, len(sl.idx), sl.cpus, sl.mem}, sl.node})
		k++
	}
	p.listTimes()
}

// refresh takes the free GPUs, CPUs and memory of every node from the
// cluster (after a start).
func (p *bfPlan) refresh(c *cluster) {
	for n := range c.nodes {
		p.free[n], p.cpu[n], p.mem[n] = c.nodes[n].free, c.nodes[n].freeCPU, c.nodes[n].freeMem
	}
}

// listTimes lists the distinct times of the releases, which are in time
// order (byLimit, insertRunning). The order of releases at the same time
// does not matter: fit applies all the releases up to a time together
// (advance) and sums them.
func (p *bfPlan) listTimes() {
	p.times = p.times[:0]
	for _, ev := range p.events {
		if len(p.times) == 0 || p.times[len(p.times)-1] != ev.at {
			p.times = append(p.times, ev.at)
		}
	}
}

// bfEvent is one node's release, in the plan's list of all releases by
// time (fit walks it once per job).
type bfEvent struct {
	bfRelease
	node int
}

// usable reports whether node n is unreserved during [from, to).
func (p *bfPlan) usable(n int, from, to float64) bool {
	r := p.resv[n]
	return math.IsInf(r[0], 1) || to <= r[0] || from >= r[1]
}

// fit finds the earliest time (now, or when running jobs reach their
// limits, within window) at which job owner's request (per × nodes, or a
// per-job total when per < 1, with its CPUs and memory) and time limit fits
// on unreserved nodes for its whole limit, and those nodes (best fit:
// fewest free GPUs first).
//
// The candidate times ascend, so each node's free resources are carried
// from one to the next (p.at) instead of summed again from its releases
// (freeAt), and owner's needs per GPU count are taken once (p.needs).
func (p *bfPlan) fit(owner, per, nodes, total int, limit, window float64) (float64, []int, bool) {
	p.startFit(owner, per)
	last := math.Inf(-1)
	try := func(t float64) ([]int, bool) {
		if t == last { // the same time again: the same answer (none)
			return nil, false
		}
		last = t
		p.advance(t, per)
		// Every node fitAt takes has per free GPUs (or, per-job, the
		// total is their free GPUs at most): when too few are free the
		// answer is no without looking at each node.
		if per >= 1 && p.wide < nodes || per < 1 && p.sum < total {
			return nil, false
		}
		return p.fitAt(t, per, nodes, total, limit)
	}
	if got, ok := try(p.now); ok {
		return p.now, got, true
	}
	for _, t := range p.times {
		if t < p.now {
			continue
		}
		if t > p.now+window {
			break
		}
		if got, ok := try(t); ok {
			return t, got, true
		}
	}
	return 0, nil, false
}

// bfFree is one node's free GPUs, CPUs and memory at the time fit tries.
type bfFree struct {
	gpus, cpus int
	mem        int64
}

// startFit resets the per-node free resources to now (before any release)
// and takes owner's CPUs and memory for 0..cap GPUs; wide counts the
// nodes (outside skip) with at least per free GPUs, sum their free GPUs.
func (p *bfPlan) startFit(owner, per int) {
	p.owner, p.next, p.wide, p.sum = owner, 0, 0, 0
	p.wideSet = slices.Grow(p.wideSet[:0], (len(p.free)+63)/64)[:(len(p.free)+63)/64]
	clear(p.wideSet)
	p.at = slices.Grow(p.at[:0], len(p.free))[:len(p.free)]
	for n := range p.free {
		p.at[n] = bfFree{gpus: p.free[n], cpus: p.cpu[n], mem: p.mem[n]}
		p.count(n, per, 1)
	}
	p.needs = slices.Grow(p.needs[:0], p.cap+1)[:p.cap+1]
	for k := range p.needs {
		c, m := p.need(owner, k)
		p.needs[k] = bfNeed{c, m}
	}
}

// count adds (sign 1) or removes (-1) node n's share of wide and sum.
func (p *bfPlan) count(n, per, sign int) {
	if p.skip != nil && p.skip[n] {
		return
	}
	g := p.at[n].gpus
	p.sum += sign * g
	if g >= per {
		p.wide += sign
		if sign > 0 {
			p.wideSet[n/64] |= 1 << (n % 64)
		} else {
			p.wideSet[n/64] &^= 1 << (n % 64)
		}
	}
}

type bfNeed struct {
	cpus int
	mem  int64
}

// needFor is what the fitted job takes besides k GPUs on a node.
func (p *bfPlan) needFor(k int) (int, int64) {
	if k < len(p.needs) {
		return p.needs[k].cpus, p.needs[k].mem
	}
	return p.need(p.owner, k)
}

// advance adds to p.at the releases up to t (t not before the last time).
func (p *bfPlan) advance(t float64, per int) {
	for p.next < len(p.events) && p.events[p.next].at <= t {
		ev := &p.events[p.next]
		a := &p.at[ev.node]
		p.count(ev.node, per, -1)
		a.gpus, a.cpus, a.mem = a.gpus+ev.gpus, a.cpus+ev.cpus, a.mem+ev.mem
		p.count(ev.node, per, 1)
		p.next++
	}
}

// usableAt is usableGPUs for the fitted job with node n's resources
// at the time tried (a).
func (p *bfPlan) usableAt(a *bfFree, want int) int {
	for k := min(a.gpus, want); k > 0; k-- {
		if c, m := p.needFor(k); c <= a.cpus && m <= a.mem {
			return k
		}
	}
	return 0
}

// fitAt tries time t, which p.at holds the free resources of.
func (p *bfPlan) fitAt(t float64, per, nodes, total int, limit float64) ([]int, bool) {
	cs := p.cands[:0]
	defer func() { p.cands = cs[:0] }()
	sum := 0
	if per >= 1 { // the wide nodes (outside skip), in node order
		for w, bs := range p.wideSet {
			for ; bs != 0; bs &= bs - 1 {
				n := w*64 + bits.TrailingZeros64(bs)
				if a := &p.at[n]; p.usable(n, t, t+limit) && p.usableAt(a, per) == per {
					cs = append(cs, bfCand{n, a.gpus})
				}
			}
		}
	} else {
		for n := range p.free {
			a := &p.at[n]
			if a.gpus < 1 || p.skip != nil && p.skip[n] || !p.usable(n, t, t+limit) {
				continue
			}
			if f := p.usableAt(a, a.gpus); f > 0 {
				cs = append(cs, bfCand{n, f})
				sum += f
			}
		}
	}
	if per >= 1 && len(cs) < nodes || per < 1 && sum < total {
		return nil, false
	}
	slices.SortStableFunc(cs, func(a, b bfCand) int { return a.free - b.free })
	if per >= 1 {
		cs = cs[:nodes]
	} else { // most free first until the total is covered
		slices.SortStableFunc(cs, func(a, b bfCand) int { return b.free - a.free })
		need, k := total, 0
		for k < len(cs) && need > 0 {
			need -= cs[k].free
			k++
		}
		cs = cs[:k]
	}
	out := make([]int, len(cs))
	for k, c := range cs {
		out[k] = c.n
	}
	return out, true
}

type bfCand struct{ n, free int }

// reserve keeps nodes for [from, to), rounded out to the resolution.
func (p *bfPlan) reserve(nodes []int, from, to, res float64) {
	from = math.Floor(from/res) * res
	to = math.Ceil(to/res) * res
	for _, n := range nodes {
		r := &p.resv[n]
		if math.IsInf(r[0], 1) {
			*r = [2]float64{from, to}
		} else { // a node reserved twice: keep the union (whole-node reservations)
			*r = [2]float64{min(r[0], from), max(r[1], to)}
		}
	}
}

// backfill is one cycle of Slurm's backfill scheduler: it walks the queue
// (at most BFMaxJobTest jobs); a job that fits now on nodes free of earlier
// reservations for its whole time limit starts now; a job that does not
// gets whole nodes reserved from the time running jobs free enough by
// their limits (the first Reservations jobs: 1 = EASY; 0 = every one).
func (e *engine) backfill(s *slurmState, t float64) {
	c := s.conf
	p := e.newBFPlan(t)
	avoid := make([]bool, len(e.cl.nodes))
	reserved, started := 0, false
	for tested, i := range e.queue(t) {
		if tested >= c.BFMaxJobTest {
			break
		}
		j := &e.jobs[i]
		per, nodes, total := request(j)
		at, got, ok := e.bfFit(p, i, per, nodes, total, j.limit, c.BFWindow.Seconds())
		if !ok {
			continue
		}
		at = e.bbExpect(i, at) // not before its burst-buffer data is in
		if at <= t && e.bbReady(i) {
			for n := range avoid {
				avoid[n] = !p.usable(n, t, t+j.limit)
			}
			if ok, _ := e.slurmStart(i, t, avoid); ok {
				started = true
				p.refresh(e.cl)
				p.insertRunning(j)
				continue
			}
		}
		if c.Reservations == 0 || reserved < c.Reservations {
			p.reserve(got, at, at+j.limit, c.BFResolution.Seconds())
			reserved++
		}
	}
	s.bfChanged = started
	if started {
		e.compactPending()
	}
	e.bbTryStageIn(s, t)
}
