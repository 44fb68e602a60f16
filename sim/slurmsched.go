package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// initSlurmJob gives a trace job its Slurm-side state: the time limit (the
// trace's, else duration × TimeLimitFactor in whole minutes, at least
// one), as sbatch --time would have set it.
func (e *engine) initSlurmJob(j *job) {
	lim := j.tj.TimeLimit
	if lim <= 0 {
		lim = math.Max(60, math.Ceil(j.tj.Duration*e.cfg.Slurm.TimeLimitFactor/60)*60)
	}
	j.limit, j.userLimit, j.killAt = lim, lim, math.Inf(1)
	j.pj.TimeLimit = time.Duration(lim * float64(time.Second))
}

// priority is priority/multifactor's value for a pending job: 1 + Age
// weight × min(1, age/PriorityMaxAge) + JobSize weight × (nodes share +
// CPU share)/2, truncated, at least 1; a priority Strata wrote sticks.
func (e *engine) priority(s *slurmState, j *job, t float64) int64 {
	if j.prioSet {
		return j.prio
	}
	c := s.conf
	accrue := max(j.slurmSubmit, j.begin) // age counts from eligibility (a requeue restarts it)
	age := math.Min(1, math.Max(0, t-accrue)/c.PriorityMaxAge.Seconds())
	_, nodes, _ := request(j)
	size := (float64(nodes)/s.nodes + float64(j.pj.CPUs)/s.cpus) / 2
	_, part := e.partPriority(j)
	return max(1, int64(1+c.PriorityWeightAge*age+c.PriorityWeightJobSize*size+c.PriorityWeightPartition*part+e.siteFactors(j))-j.nice)
}

// recalcPriorities is priority/multifactor's periodic recalculation
// (PriorityCalcPeriod); between recalculations priorities are stale.
func (e *engine) recalcPriorities(s *slurmState, t float64) {
	if s.conf.PriorityWeightFairshare > 0 {
		e.accrueUsage(t)
	}
	for _, i := range e.pending {
		j := &e.jobs[i]
		j.prio = e.priority(s, j, t)
	}
}

// request is a pending job's GPU request as Slurm holds it: per node ×
// nodes, or (per < 1) a per-job total.
func request(j *job) (per, nodes, total int) {
	p := &j.pj
	if p.GPUsPerJob > 0 {
		return 0, max(1, p.Nodes), p.GPUsPerJob
	}
	return p.GPUsPerNode, max(1, p.Nodes), p.GPUsPerNode * max(1, p.Nodes)
}

// queue is the pending jobs Slurm may start at t (begin time reached) in
// its evaluation order: partition tier, priority, then submission, then job ID (the sort
// of both schedulers).
func (e *engine) queue(t float64) []int {
	out := make([]int, 0, len(e.pending))
	for _, i := range e.pending {
		if e.jobs[i].begin <= t+1e-9 {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b int) int {
		x, y := &e.jobs[a], &e.jobs[b]
		tx, _ := e.partPriority(x)
		ty, _ := e.partPriority(y)
		if c := cmp.Compare(ty, tx); c != 0 { // the higher tier first
			return c
		}
		if c := cmp.Compare(y.prio, x.prio); c != 0 {
			return c
		}
		if c := cmp.Compare(x.slurmSubmit, y.slurmSubmit); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// mainPass is slurmctld's main scheduler: it walks the queue and starts
// every job that fits now; a job that does not fit for lack of resources
// blocks the rest of its partitions (jobs only in blocked partitions are
// skipped; with one partition the pass ends there). depth > 0 limits the
// jobs looked at (event-triggered passes).
func (e *engine) mainPass(s *slurmState, t float64, depth int) {
	started := false
	blockedPart := make([]bool, len(e.cl.spec.partitions()))
	open := len(blockedPart)
	for n, i := range e.queue(t) {
		if depth > 0 && n >= depth || open == 0 {
			break
		}
		parts := e.cl.partsOf(e.jobs[i].pj.Partition)
		if !slices.ContainsFunc(parts, func(p int) bool { return !blockedPart[p] }) {
			continue
		}
		ok, blocked := e.slurmStart(i, t, nil)
		if ok {
			started = true
		}
		if blocked {
			for _, p := range parts {
				if !blockedPart[p] {
					blockedPart[p], open = true, open-1
				}
			}
		}
	}
	if started {
		s.bfChanged = true
		e.compactPending()
	}
	e.bbTryStageIn(s, t)
}

// slurmStart starts pending job i now with its request if it fits on nodes
// not in avoid; blocked reports a lack of nodes. A job whose burst-buffer
// data is not in yet gets its space and its stage-in started when the pool
// has room (slurmbb.go) and does not start; it does not block the jobs
// behind, as in Slurm.
func (e *engine) slurmStart(i int, t float64, avoid []bool) (started, blocked bool) {
	j := &e.jobs[i]
	if !e.bbTestStageIn(nil, i, t) {
		return false, false
	}
	per, nodes, total := request(j)
	var slots []slot
	ok := false
	if len(e.cl.spec.Parts) == 0 {
		slots, ok = e.cl.placeAvoiding(i+1, per, nodes, total, nil, avoid)
	}
	for _, p := range e.cl.partsOf(j.pj.Partition) { // in the job's order, as Slurm tries them
		if ok || len(e.cl.spec.Parts) == 0 {
			break
		}
		slots, ok = e.cl.placeAvoiding(i+1, per, nodes, total, nil, e.cl.outside(p, avoid))
	}
	if !ok {
		return false, true
	}
	e.bbStart(i)
	e.begin(i, slots, total, t)
	e.predictRun(i)
	j.killAt = t + j.limit
	return true, false
}
