package sim

import "math"

// BBStats describes the burst-buffer pool of a Slurm-mode run with a pool
// (Result.BurstBuffer). Times are seconds, averaged over the finished jobs
// with burst-buffer data unless said otherwise.
type BBStats struct {
	// Jobs is the number of finished jobs with burst-buffer data.
	Jobs int `json:"jobs"`
	// PoolUtil is the space in use (allocated: staging in, staged, running,
	// staging out) integrated over time, over capacity × makespan.
	PoolUtil float64 `json:"pool_util"`
	// PoolWait is submit → the job's space allocated (waiting for the pool,
	// or for the scheduler to reach the job); StageIn allocation → data in;
	// StageWait submit → data in (the two together); StagedIdle data in →
	// the job's first start (its data holds the pool while it waits for
	// nodes).
	PoolWait   float64 `json:"avg_pool_wait_s"`
	StageIn    float64 `json:"avg_stage_in_s"`
	StageWait  float64 `json:"avg_stage_wait_s"`
	StagedIdle float64 `json:"avg_staged_idle_s"`
	// MaxQueue is the longest wait (submit → first start) of any finished
	// job, with or without burst-buffer data; MaxQueueBB of those with.
	MaxQueue   float64 `json:"max_queue_s"`
	MaxQueueBB float64 `json:"max_queue_bb_s"`
}

// bbStats summarises the pool of a Slurm-mode run between the first
// submission and the last end (nil without a pool).
func (e *engine) bbStats(first, last float64) *BBStats {
	b := e.cl.bb
	if b == nil {
		return nil
	}
	st := &BBStats{}
	var wait, in, stage, idle float64
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.phase != phaseDone || j.kills > 0 {
			continue
		}
		q := j.firstStart - j.tj.Submit
		st.MaxQueue = max(st.MaxQueue, q)
		bj := &b.jobs[i]
		if !e.uses(i) || bj.firstReady < 0 {
			continue
		}
		st.Jobs++
		st.MaxQueueBB = max(st.MaxQueueBB, q)
		wait += bj.firstAlloc - j.tj.Submit
		in += bj.firstReady - bj.firstAlloc
		stage += bj.firstReady - j.tj.Submit
		idle += j.firstStart - bj.firstReady
	}
	used := b.byteSeconds
	for i := range b.jobs { // space still held at the end counts until then
		if bj := &b.jobs[i]; bj.phase != bbNone {
			used += float64(e.jobs[i].pj.BurstBufferBytes) * math.Max(0, last-bj.allocAt)
		}
	}
	if span := last - first; span > 0 {
		st.PoolUtil = round(used/(float64(e.cl.spec.BurstBufferBytes)*span), 4)
	}
	st.MaxQueue, st.MaxQueueBB = round(st.MaxQueue, 1), round(st.MaxQueueBB, 1)
	if n := float64(st.Jobs); n > 0 {
		st.PoolWait, st.StageIn = round(wait/n, 1), round(in/n, 1)
		st.StageWait, st.StagedIdle = round(stage/n, 1), round(idle/n, 1)
	}
	return st
}
