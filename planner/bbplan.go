package planner

import (
	"math"
	"time"
)

// Burst buffers in time. Slurm's burst_buffer plugins stage a job's data in
// while the job is pending, holding the job's space in the pool from the
// start of its stage-in until its stage-out ends, and the job is not
// eligible before its data is in (docs/slurm.md § Burst buffers). So, for a
// pending job with burst-buffer data in a known pool:
//
//   - a job that already holds its space (burst_buffer_state staging-in,
//     staged-in, ...) needs no more of the pool: it is left out of the
//     pool's dimension of the knapsack (its space is in the pool's use);
//   - a job whose data is not in cannot start before its stage-in is done:
//     stageIn = bytes / the pool's bandwidth (the hint's bb= when given,
//     the data to stage, else the job's whole capacity; a job staging in
//     now is assumed to need the whole time, as its progress is not
//     known). When that is longer than one planning interval the job
//     counts as not eligible until then (notYet), so it is planned, sized
//     and ranked for that time, its cost includes the wait, and its
//     predicted start and end include the stage-in. A shorter stage-in is
//     over before Strata's next cycle: the job is planned as if it could
//     start now (Slurm starts it as soon as its data is in);
//   - in SMD's list schedule of waiting jobs the pool's space over time is
//     a second profile: a job needs its bytes from its stage-in start
//     (start − stageIn) to its predicted end plus its stage-out (stageOut:
//     the hint's bbout= over the bandwidth: Slurm holds the space while the
//     output is copied out); space comes back when running and starting
//     jobs are predicted to end and their output is out;
//   - a waiting job that does not hold its space yet and is planned to
//     start later than one interval from now (plus its stage-in) is
//     deferred to start − stageIn: Slurm allocates a job's space as soon
//     as its main scheduler reaches the job, nodes free or not, so a job
//     ranked high but waiting for GPUs would otherwise hold the pool, idle,
//     until it starts, and keep jobs that could run now from staging in.
//
// Without a bandwidth (Snapshot's BandwidthBps, else
// Options.BurstBufferBps) stage-in takes no time; without a pool the
// job's burst-buffer request is ignored.

// bbStaged lists the burst_buffer_state values of a pending job that holds
// its space with its data in; bbStaging those that hold it while the data
// is still coming in.
var (
	bbStaged  = map[string]bool{"staged-in": true, "pre-run": true, "running": true}
	bbStaging = map[string]bool{"allocating": true, "allocated": true, "staging-in": true}
)

// setBurstBuffer derives the burst-buffer fields of a pending job (see
// above): bbHeld, stageIn, and notYet at least stageIn.
func (c *cycle) setBurstBuffer(ji *jobInfo) {
	ji.stageIn, ji.stageOut, ji.bbHeld = 0, 0, -1
	j := ji.job
	if ji.bbPool >= 0 && ji.hasHint && ji.hints.BBOutBytes > 0 {
		ji.stageOut = c.stageTime(ji.bbPool, min(ji.hints.BBOutBytes, ji.bb), 1)
	}
	if ji.bbPool < 0 || j.State != JobPending {
		return
	}
	st := j.BurstBufferState
	if bbStaged[st] || bbStaging[st] {
		ji.bbHeld, ji.bbPool = ji.bbPool, -1 // its space is in the pool's use already
	}
	if bbStaged[st] {
		return
	}
	k, joining := ji.bbHeld, 0
	if k < 0 {
		k, joining = ji.bbPool, 1 // its transfer adds to those under way
	}
	ji.stageIn = c.stageTime(k, ji.stageBytes(), c.bbFlows[k]+joining)
	if ji.stageIn <= c.o.Interval {
		ji.stageIn = 0 // in before the next cycle: plan it as startable now
		return
	}
	ji.notYet = max(ji.notYet, ji.stageIn)
}

// stageBytes is the data a job stages in: the hint's bb= when given (at
// most the job's capacity), else its whole capacity.
func (ji *jobInfo) stageBytes() int64 {
	if b := ji.hints.BBBytes; ji.hasHint && b > 0 && b <= ji.bb {
		return b
	}
	return ji.bb
}

// stageTime is how long bytes take into or out of pool k with flows
// transfers under way (this one among them): the bandwidth per job (the
// pool's, else Options.BurstBufferBps), or an equal share of the pool's
// total bandwidth (the pool's, else Options.BurstBufferPoolBps) when that
// is less. Transfers that start or end meanwhile are not foreseen. 0 when
// no bandwidth is known.
func (c *cycle) stageTime(k int, bytes int64, flows int) time.Duration {
	bw := c.pools[k].BandwidthBps
	if bw <= 0 {
		bw = c.o.BurstBufferBps
	}
	total := c.pools[k].TotalBandwidthBps
	if total <= 0 {
		total = c.o.BurstBufferPoolBps
	}
	if share := total / float64(max(flows, 1)); total > 0 && (bw <= 0 || share < bw) {
		bw = share
	}
	if bw <= 0 || bytes <= 0 {
		return 0
	}
	return seconds(float64(bytes) / bw)
}

// staging reports a job that waits for its burst-buffer stage-in only
// (not also for a later begin time or a dependency).
func (ji *jobInfo) staging() bool { return ji.stageIn > 0 && ji.notYet == ji.stageIn }

// notYetReason is why Slurm does not consider a job yet.
func (ji *jobInfo) notYetReason() Reason {
	if ji.staging() {
		return ReasonBurstBufferStaging
	}
	return ReasonBeginTime
}

// poolUnit is the granularity of the pool profiles (MiB), so that pools of
// petabytes fit the profile's int counts.
const poolUnit = 1 << 20

// poolProfiles builds, for every pool, its free space over time after this
// cycle's starts (in poolUnit): free now, returned when running jobs
// (of any partition) and this island's starting jobs are predicted to end.
// nil when the snapshot has no pool.
func (s *smdIsland) poolProfiles(items []*smdItem) []*gpuProfile {
	c := s.cycle
	if len(c.pools) == 0 {
		return nil
	}
	rel := make([][]release, len(c.pools))
	for _, ji := range c.jobs {
		if k := ji.bbPool; k >= 0 && ji.job.State == JobRunning && ji.isl != nil {
			rel[k] = append(rel[k], release{c.runningEnd(ji).Sub(c.s.Now) + ji.stageOut, units(ji.bb)})
		}
	}
	for _, it := range items {
		ji := it.pl.ji
		if k := max(ji.bbPool, ji.bbHeld); k >= 0 && it.pl.start && !it.running {
			rel[k] = append(rel[k], release{it.pl.dur + ji.stageOut, units(ji.bb)})
		}
	}
	out := make([]*gpuProfile, len(c.pools))
	for k := range c.pools {
		out[k] = newProfile(int(c.bbFree[k]/poolUnit), rel[k])
	}
	return out
}

// units is bytes in poolUnit, rounded up.
func units(b int64) int { return int((b + poolUnit - 1) / poolUnit) }

// poolEarliest is the earliest start at or after t at which the job's data
// fits its pool from its stage-in start to its end (t itself when the job
// needs no space from the pool); false when it never does.
func (s *smdIsland) poolEarliest(it *smdItem, o option, t float64) (float64, bool) {
	ji := it.pl.ji
	if s.poolProf == nil || ji.bbPool < 0 {
		return t, true
	}
	in := ji.stageIn.Seconds()
	from := math.Max(0, t-in)
	u, ok := s.poolProf[ji.bbPool].earliest(units(ji.bb), in+o.dur.Seconds()+ji.stageOut.Seconds(), from)
	if !ok || u <= from {
		return t, ok // fits from t itself (exactly t: (t−in)+in may round)
	}
	return math.Max(t, u+in), true
}

// poolReserve takes the job's space from its pool profile for a start at t
// (from its stage-in start to its end), or, for a job that holds its space
// already, gives it back at its end.
func (s *smdIsland) poolReserve(it *smdItem, o option, t float64) {
	ji := it.pl.ji
	if s.poolProf == nil {
		return
	}
	end := t + o.dur.Seconds() + ji.stageOut.Seconds()
	switch {
	case ji.bbPool >= 0:
		in := ji.stageIn.Seconds()
		s.poolProf[ji.bbPool].reserve(units(ji.bb), t-in, in+o.dur.Seconds()+ji.stageOut.Seconds())
	case ji.bbHeld >= 0:
		s.poolProf[ji.bbHeld].add(end, math.Inf(1), units(ji.bb))
	}
}

// deferStageIn gives a waiting job whose burst-buffer space is still to be
// allocated a begin time when the plan starts it later than one interval
// plus its stage-in from now: its planned start less its stage-in time, so
// that Slurm allocates its space and stages the data in just in time, and
// does not start the job before the plan does. It reports whether it
// deferred the job. Jobs Slurm does not consider yet for another reason
// (a begin time, a dependency) are left alone.
func (c *cycle) deferStageIn(pl *planned) bool {
	ji := pl.ji
	if pl.start || pl.poolWait || pl.action != ActionUpdate || ji.isl == nil || cannotRun(pl) || !pl.hasStart ||
		ji.bbPool < 0 || ji.bb <= 0 || ji.notYet > ji.stageIn {
		return false
	}
	at := pl.predStart.Add(-ji.stageIn)
	if !at.After(c.s.Now.Add(c.o.Interval)) {
		return false
	}
	pl.notBefore = at
	return true
}

// gpuEq is the GPUs option o of a job weighs in SMD's queue argument
// (queueCosts: the delay a start imposes on the other jobs, and the WSPT
// order): its GPUs, or, when its burst-buffer data takes a larger share of
// its pool than its GPUs take of the partition, that share of the
// partition's GPUs. A job that fills the pool holds up the others as a job
// on every GPU would (its dominant resource decides).
func (s *smdIsland) gpuEq(ji *jobInfo, o *option) float64 {
	k := max(ji.bbPool, ji.bbHeld)
	if k < 0 || s.totalGPU <= 0 || s.pools[k].CapacityBytes <= 0 {
		return o.gpu
	}
	return math.Max(o.gpu, float64(s.totalGPU)*float64(ji.bb)/float64(s.pools[k].CapacityBytes))
}

// Waiting for space. A pending job that lacks only burst-buffer space —
// its nodes are free now, nothing else holds it back — is started by
// Slurm's burst-buffer plugin as soon as space frees: the plugin gives
// freed space to the highest-priority job that fits. The plan's list
// schedule of such jobs over the pool's profile predicts when, but
// written as an order by predicted start, with begin times, it keeps
// Slurm from filling space that frees early or in fragments the schedule
// did not foresee; on a pool that many large jobs wait for (the ITP
// traces in docs/evaluation.md § Burst buffers that bind) that cost up to
// 39 % of the average JCT. So such a job (planned.poolWait) ranks among
// the starts by its cost per weight (SMD's WSPT key) and gets no begin
// time: the plan's order decides who gets the space, Slurm decides when.
// A job that also waits for nodes keeps its planned start and its
// just-in-time stage-in (deferStageIn).

// poolOnly reports a waiting job whose option o lacks only burst-buffer
// space now: its pool has too little free, its nodes are free, and it
// waits for nothing else (or only for its own stage-in).
func (s *smdIsland) poolOnly(ji *jobInfo, o option) bool {
	return ji.bbPool >= 0 && s.bbFree[ji.bbPool] < ji.bb && (ji.notYet == 0 || ji.staging()) &&
		s.cycle.canPlace(ji.isl, o.sh, ji.cpuPerW, ji.memPerW)
}
