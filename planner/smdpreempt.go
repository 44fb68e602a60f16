package planner

import (
	"cmp"
	"math"
	"slices"
)

// maxPreemptCandidates bounds the running jobs SMD considers preempting per
// island and cycle (the largest first), so that a cluster of many
// preemptible jobs plans in bounded time.
const maxPreemptCandidates = 8

// maxPreemptsPerCycle bounds SMD's preemptions per island and cycle.
const maxPreemptsPerCycle = 4

// maxEvalWaiting bounds the waiting jobs each evaluation places (the head
// of scheduleWaiting's order, which the freed GPUs reach first), so that
// weighing a preemption costs O(candidates × this), not O(queue).
const maxEvalWaiting = 64

// lastPreemptFactor scales the gain a job's last preemption of the day
// (Options.MaxPreemptPerDay) must bring: once it is spent the job keeps its
// GPUs whatever arrives, so it is kept for a large gain.
const lastPreemptFactor = 10

// preemptions decides which preemptible running jobs SMD stops this cycle,
// and at which size each restarts (docs/planner.md, "Preemption"). On
// Slurm a preempted job keeps its GPUs while it saves its checkpoint,
// requeues itself, waits for Slurm's requeue delay and restarts, paying
// its restart cost (JobRestartCost) before it progresses again. SMD stops
// only long jobs (predicted to run longer than Options.LongJob), and only
// for waiting short jobs: stopping or shrinking a long job costs it
// minutes, while the short jobs it blocks wait hours. It prices that
// honestly: for each candidate it compares the weighted completion times
// of the waiting jobs and of the candidate, as the list schedule of
// scheduleWaiting places them, with the candidate running on to its
// predicted end and with the candidate stopped (its GPUs free within an
// interval) and restarted after its restart cost at the size (no larger
// than its own) that completes it best. The candidate with the largest
// gain is preempted when the gain exceeds the preemption's margin
// (preemptMargin); then the others are weighed again against the new
// schedule, within the guards' limits (mayPreempt and the cycle's
// disturbed GPU-hours). It runs after this cycle's starts (which use only
// GPUs free now) and before scheduleWaiting, which then plans the waiting
// jobs onto the GPUs the preempted jobs free.
func (s *smdIsland) preemptions(items []*smdItem) []*planned {
	c := s.cycle
	var wait []*smdItem
	shortWaits := false
	for _, it := range items {
		if !it.pl.start && !it.running {
			wait = append(wait, it)
			shortWaits = shortWaits || !c.isLong(fastest(it.all))
		}
	}
	if !shortWaits {
		return nil
	}
	var cands []*jobInfo
	for _, ji := range s.isl.running {
		if ji.canPreempt && !ji.leaving && ji.model.kind != kindOpaque && c.remainingSeconds(ji) > c.o.LongJob.Seconds() {
			cands = append(cands, ji)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortStableFunc(cands, func(a, b *jobInfo) int { return cmp.Compare(b.req, a.req) })
	cands = cands[:min(len(cands), maxPreemptCandidates)]
	s.sortWaiting(wait)
	wait = wait[:min(len(wait), maxEvalWaiting)]
	budget := c.o.MaxDisturbedGPUHours // of this cycle's preemptions
	var out []*planned
	for len(cands) > 0 && len(out) < maxPreemptsPerCycle {
		base := s.evalSchedule(items, wait, nil, 0)
		best, bestGain := -1, 0.0
		var bestOpt option
		for k, ji := range cands {
			if c.disturbedGPUHours(ji) > budget {
				continue
			}
			restart := s.restartItem(ji)
			if restart == nil {
				continue
			}
			ji.leaving = true
			alt := s.evalSchedule(items, wait, restart, JobRestartCost(ji.hints, *c.o).Seconds())
			ji.leaving = false
			gain := base.total - alt.total
			if alt.ok && gain > s.preemptMargin(ji) && gain > bestGain {
				best, bestGain, bestOpt = k, gain, alt.restart
			}
		}
		if best < 0 {
			break
		}
		budget -= c.disturbedGPUHours(cands[best])
		out = append(out, s.preemptPlanned(cands[best], bestOpt))
		cands = slices.Delete(cands, best, best+1)
	}
	return out
}

// disturbedGPUHours is what preempting running job ji disturbs, as the
// writer's guard counts it (DisturbedGPUHours).
func (c *cycle) disturbedGPUHours(ji *jobInfo) float64 { return DisturbedGPUHours(ji.job, c.s.Now) }

// remainingSeconds is the predicted time until a running job ends.
func (c *cycle) remainingSeconds(ji *jobInfo) float64 {
	return math.Max(0, c.runningEnd(ji).Sub(c.s.Now).Seconds())
}

// preemptMargin is the least modelled gain (weighted seconds) for which
// SMD preempts a job: its own restart cost, plus the GPU time the restart
// costs the cluster as the waiting it adds (its GPUs × its restart cost,
// at the island's queue price μ), so that a preemption must pay for more
// than itself; ×lastPreemptFactor for the job's last preemption of the
// day.
func (s *smdIsland) preemptMargin(ji *jobInfo) float64 {
	r := JobRestartCost(ji.hints, *s.o).Seconds()
	m := ji.weight*r + s.mu*float64(ji.req)*r
	if ji.job.PreemptsToday+1 >= s.o.MaxPreemptPerDay {
		m *= lastPreemptFactor
	}
	return m
}

// preemptPlanned turns a running job into a preempt decision restarting at
// option o (no size when it restarts at the size it has).
func (s *smdIsland) preemptPlanned(ji *jobInfo, o option) *planned {
	ji.leaving = true
	pl := s.keepDecision(ji)
	pl.action, pl.reasons, pl.dur = ActionPreempt, []Reason{ReasonPreempted}, o.dur
	pl.w, pl.p, pl.sh = 0, 0, shape{}
	if o.w != ji.req {
		pl.w, pl.p, pl.sh = o.w, o.p, o.sh
		pl.reasons = []Reason{ReasonResizedRestart}
	}
	return pl
}

// restartItem is a running job as the pending job it becomes when it is
// preempted: options no larger than its size, covering the work it has
// left, costed as queueCosts costs a job starting now; nil when it has
// none.
func (s *smdIsland) restartItem(ji *jobInfo) *smdItem {
	c := s.cycle
	left := c.workLeft(ji)
	if left == 1 { // never restarted: what is left of this run
		d, _ := c.durationAt(ji, max(1, ji.req), max(1, ji.pmin))
		left = math.Min(1, math.Max(0.05, 1-ji.job.AttainedGPUSeconds/(d.Seconds()*float64(max(1, ji.req)))))
	}
	opts := slices.DeleteFunc(slices.Clone(c.options(ji, c.s.Now)), func(o option) bool { return o.w > ji.req })
	if len(opts) == 0 {
		return nil
	}
	for k := range opts {
		o := &opts[k]
		o.dur = seconds(o.dur.Seconds() * left)
		o.cost = c.optionCost(ji, o, c.s.Now) + s.mu*o.gpu*o.dur.Seconds()
	}
	return &smdItem{pl: &planned{ji: ji}, opts: opts, all: opts}
}

// scheduleEval is the outcome of one evaluated list schedule: the total
// weighted completion time (seconds from now) of the waiting jobs and of
// the running jobs that may be preempted, the option the candidate
// restarts with, and whether the candidate could be placed at all.
type scheduleEval struct {
	total   float64
	restart option
	ok      bool
}

// evalSchedule places the waiting jobs (wait, of the island's items, in
// scheduleWaiting's order, each at the option and start minimising its
// cost plus its wait, as scheduleOne does) on the island's GPU profile,
// without touching the plan; running jobs end as predicted (a job marked
// leaving frees its GPUs within an interval). restart, when set, is a
// preempted job that may restart no earlier than from seconds from now,
// taken in the order of its best cost. The total counts every waiting job
// and every running job that may be preempted (at its predicted end, or at
// the restart's completion).
func (s *smdIsland) evalSchedule(items, wait []*smdItem, restart *smdItem, from float64) scheduleEval {
	prof := s.profile(items, nil)
	longProf := s.longProfile(items, nil)
	out := scheduleEval{ok: restart == nil}
	for _, ji := range s.isl.running {
		if ji.canPreempt && !ji.leaving {
			out.total += ji.weight * s.remainingSeconds(ji)
		}
	}
	order := wait
	if restart != nil {
		order = append(slices.Clone(wait), restart)
		s.sortWaiting(order)
	}
	for _, it := range order {
		f := it.pl.ji.notYet.Seconds()
		if it == restart {
			f = from
		}
		ch, ok := s.evalOne(it, prof, longProf, f)
		if !ok {
			if it == restart {
				return scheduleEval{}
			}
			continue
		}
		out.total += it.pl.ji.weight * (ch.t + ch.o.dur.Seconds())
		if it == restart {
			out.restart, out.ok = ch.o, true
		}
	}
	return out
}

// evalOne is scheduleOne without side effects on the plan: the job's
// cheapest choice (cost plus the cost of its wait) at or after from,
// reserved in the profiles.
func (s *smdIsland) evalOne(it *smdItem, prof, longProf *gpuProfile, from float64) (waitChoice, bool) {
	ji := it.pl.ji
	var best waitChoice
	found := false
	for _, o := range it.all {
		t, ok := s.earliestIn(it, prof, longProf, o, from)
		if !ok {
			continue
		}
		wc := ji.weight * t
		if ji.aged {
			wc *= agedFactor
		}
		if v := o.cost + wc; !found || v < best.value || v == best.value && t < best.t {
			best, found = waitChoice{o, t, v}, true
		}
	}
	if !found {
		return best, false
	}
	prof.reserve(best.o.w, best.t, best.o.dur.Seconds())
	if s.limitedIn(longProf, it, best.o) {
		longProf.reserve(best.o.w, best.t, best.o.dur.Seconds())
	}
	return best, true
}

// limitedIn is limitedByShare for an explicit long-job profile.
func (s *smdIsland) limitedIn(longProf *gpuProfile, it *smdItem, o option) bool {
	return longProf != nil && s.isLong(o) && !(it.pl.ji.aged && o.w == narrowest(it.all))
}

// earliestIn is earliest on explicit profiles.
func (s *smdIsland) earliestIn(it *smdItem, prof, longProf *gpuProfile, o option, from float64) (float64, bool) {
	d := o.dur.Seconds()
	for {
		t, ok := prof.earliest(o.w, d, from)
		if !ok || !s.limitedIn(longProf, it, o) {
			return t, ok
		}
		u, ok := longProf.earliest(o.w, d, t)
		if !ok || u == t {
			return u, ok
		}
		from = u
	}
}

// sortWaiting orders waiting jobs as scheduleWaiting takes them: aged
// first (oldest first), then by their best cost per weight, then by ID.
func (s *smdIsland) sortWaiting(wait []*smdItem) {
	// each job's key beside it: no map lookups in the sort
	ks := slices.Grow(s.isl.smd.keyed[:0], len(wait))[:len(wait)]
	defer func() { s.isl.smd.keyed = ks[:0] }()
	for k, it := range wait {
		ks[k] = itemKey{it, bestCostPerWeight(it.all, it.pl.ji.weight)}
	}
	slices.SortStableFunc(ks, func(a, b itemKey) int {
		x, y := a.it.pl.ji, b.it.pl.ji
		if x.aged != y.aged {
			return lessInt(x.aged)
		}
		if x.aged && !x.job.SubmitTime.Equal(y.job.SubmitTime) {
			return lessInt(x.job.SubmitTime.Before(y.job.SubmitTime))
		}
		if k := cmp.Compare(a.key, b.key); k != 0 {
			return k
		}
		return cmp.Compare(x.job.ID, y.job.ID)
	})
	for k := range ks {
		wait[k] = ks[k].it
	}
}
