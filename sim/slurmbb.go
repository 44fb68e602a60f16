package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/strata-hpc/strata/planner"
)

// Burst buffers in Slurm mode, as Slurm's burst_buffer/lua plugin handles
// them (src/plugins/burst_buffer/lua/burst_buffer_lua.c, Slurm 24.11):
//
//  1. allocation: a pending job's space is taken from the pool when the
//     main scheduler reaches the job in priority order
//     (bb_p_job_test_stage_in, called by select_nodes before any node is
//     chosen), or, after each backfill cycle and after a main pass that
//     left burst-buffer jobs waiting, by bb_p_job_try_stage_in: jobs with
//     an expected start time (set by backfill), sorted by it, take space
//     while the pool has room, stopping at the first that does not fit;
//  2. stage-in: from the allocation the job's data (bb_in_bytes, else its
//     whole capacity) is copied in at the pool's bandwidth per job
//     (ClusterSpec.BurstBufferBps), and, when the pool's total bandwidth
//     is given (BurstBufferPoolBps), at most an equal share of it: the
//     transfers under way (stage-ins and stage-outs) share it, so each
//     one's end moves whenever another starts or ends (bbflow.go); the
//     job stays pending and is not eligible before its
//     data is in (reason BurstBufferStageIn), without blocking the jobs
//     behind it; a job whose space is not free waits
//     (BurstBufferResources), also without blocking them;
//  3. run: the job starts when the schedulers find nodes for it, holding
//     its space;
//  4. stage-out: after the job ends its nodes are free, and its output
//     (bb_out_bytes) is copied out; the space returns to the pool when
//     that is done (teardown). A job requeued by preemption gives its
//     space back at once and stages in again.
//
// Every transition triggers a main pass (queue_job_scheduler). In the
// ideal mode none of this is modelled: a job holds its space while it runs.

// bbPhase is where a job's burst buffer is.
type bbPhase uint8

const (
	bbNone       bbPhase = iota // no space allocated (yet)
	bbStaging                   // allocated, data coming in until readyAt
	bbStaged                    // data in, the job waits for nodes
	bbRunning                   // the job runs
	bbStagingOut                // the job ended, data going out until freeAt
)

// bbJob is one job's burst-buffer state.
type bbJob struct {
	phase            bbPhase
	allocAt, readyAt float64
	freeAt           float64
	// expStart is the start backfill expects for the pending job (+Inf:
	// none), which orders bb_p_job_try_stage_in.
	expStart float64
	// first* record the first allocation and stage-in (statistics).
	firstAlloc, firstReady float64
	// flowing: a transfer of the job's is under way with left bytes to go
	// (only with a shared total bandwidth, bbflow.go).
	flowing bool
	left    float64
}

// bbState is the pool's bookkeeping in Slurm mode (the capacity and the
// bytes in use are the cluster's spec.BurstBufferBytes and bbUsed).
type bbState struct {
	jobs []bbJob // by job index
	// byteSeconds integrates the space in use over time (pool utilization).
	byteSeconds float64
	// flows transfers are under way, their bytes left counted at flowAt
	// (bbflow.go).
	flows  int
	flowAt float64
}

// newBBState sets up the pool of Slurm mode when the cluster has one.
func (e *engine) newBBState() {
	if e.cl.spec.BurstBufferBytes <= 0 {
		return
	}
	b := &bbState{jobs: make([]bbJob, len(e.jobs))}
	for i := range b.jobs {
		b.jobs[i] = bbJob{expStart: math.Inf(1), firstAlloc: -1, firstReady: -1}
	}
	e.cl.bb = b
}

// uses reports whether job i has burst-buffer data (and the run a pool).
func (e *engine) uses(i int) bool { return e.cl.bb != nil && e.jobs[i].pj.BurstBufferBytes > 0 }

// transfer is how long bytes take in or out of the pool.
func (e *engine) transfer(bytes int64) float64 {
	if bw := e.cl.spec.BurstBufferBps; bw > 0 && bytes > 0 {
		return float64(bytes) / bw
	}
	return 0
}

// stageInBytes is what job i copies in before it starts.
func (e *engine) stageInBytes(i int) int64 {
	if tj := e.jobs[i].tj; tj.BBInBytes > 0 {
		return min(tj.BBInBytes, e.jobs[i].pj.BurstBufferBytes)
	}
	return e.jobs[i].pj.BurstBufferBytes
}

// bbAllocate takes job i's space and starts its stage-in, when the pool
// has room; false when it has not.
func (e *engine) bbAllocate(s *slurmState, i int, t float64) bool {
	b := &e.cl.bb.jobs[i]
	size := e.jobs[i].pj.BurstBufferBytes
	if e.cl.bbUsed+size > e.cl.spec.BurstBufferBytes {
		return false
	}
	e.cl.bbUsed += size
	b.phase, b.allocAt = bbStaging, t
	b.readyAt = t + e.transfer(e.stageInBytes(i))
	if b.firstAlloc < 0 {
		b.firstAlloc = t
	}
	e.bbFlowStart(i, e.stageInBytes(i), t)
	if b.readyAt <= t {
		e.bbStaged(s, i, t)
	}
	return true
}

// bbStaged marks job i's data in.
func (e *engine) bbStaged(s *slurmState, i int, t float64) {
	b := &e.cl.bb.jobs[i]
	e.bbFlowEnd(i, t)
	b.phase = bbStaged
	if b.firstReady < 0 {
		b.firstReady = t
	}
	if s != nil {
		s.requestPass(t)
		s.bfChanged = true
	}
}

// bbTestStageIn is bb_p_job_test_stage_in for the main scheduler: true
// when job i may start now (no burst buffer, or its data is in); else it
// allocates the job's space and starts its stage-in if the pool has room.
func (e *engine) bbTestStageIn(s *slurmState, i int, t float64) bool {
	if !e.uses(i) {
		return true
	}
	switch e.cl.bb.jobs[i].phase {
	case bbStaged:
		return true
	case bbNone:
		e.bbAllocate(s, i, t)
		return e.cl.bb.jobs[i].phase == bbStaged
	}
	return false
}

// bbReady reports, without side effects, whether job i's data is in (or it
// has none): what backfill tests before starting a job.
func (e *engine) bbReady(i int) bool {
	return !e.uses(i) || e.cl.bb.jobs[i].phase == bbStaged
}

// bbExpect records the start backfill found for job i; a job whose data is
// still coming in cannot start before it is in.
func (e *engine) bbExpect(i int, at float64) float64 {
	if !e.uses(i) {
		return at
	}
	b := &e.cl.bb.jobs[i]
	if b.phase == bbStaging {
		at = max(at, b.readyAt)
	}
	b.expStart = at
	return at
}

// bbTryStageIn is bb_p_job_try_stage_in: eligible pending jobs without
// space that backfill gave an expected start take space in the order of
// that start (then priority, then submission), while the pool has room;
// the first that does not fit ends the walk.
func (e *engine) bbTryStageIn(s *slurmState, t float64) {
	if e.cl.bb == nil {
		return
	}
	var cands []int
	for _, i := range e.pending {
		b := &e.cl.bb.jobs[i]
		if e.uses(i) && b.phase == bbNone && !math.IsInf(b.expStart, 1) && e.jobs[i].begin <= t+1e-9 {
			cands = append(cands, i)
		}
	}
	slices.SortFunc(cands, func(a, c int) int {
		x, y := &e.cl.bb.jobs[a], &e.cl.bb.jobs[c]
		if d := cmp.Compare(x.expStart, y.expStart); d != 0 {
			return d
		}
		if d := cmp.Compare(e.jobs[c].prio, e.jobs[a].prio); d != 0 {
			return d
		}
		return cmp.Compare(a, c)
	})
	for _, i := range cands {
		if !e.bbAllocate(s, i, t) {
			return
		}
	}
}

// bbStart marks job i running on its staged data.
func (e *engine) bbStart(i int) {
	if e.uses(i) {
		e.cl.bb.jobs[i].phase = bbRunning
	}
}

// bbEnded handles the end of job i at t: in Slurm mode its output is
// staged out and its space returns to the pool after that; otherwise (the
// ideal mode) the space returns at once.
func (e *engine) bbEnded(i int, t float64) {
	size := e.jobs[i].pj.BurstBufferBytes
	if !e.uses(i) {
		e.cl.bbUsed -= size
		return
	}
	b := &e.cl.bb.jobs[i]
	b.phase, b.freeAt = bbStagingOut, t+e.transfer(e.jobs[i].tj.BBOutBytes)
	e.bbFlowStart(i, e.jobs[i].tj.BBOutBytes, t)
	if b.freeAt <= t {
		e.bbFree(nil, i, t)
	}
}

// bbRequeued gives a requeued job's space back at once (it stages in
// again when it is scheduled again).
func (e *engine) bbRequeued(i int, t float64) {
	if !e.uses(i) {
		e.cl.bbUsed -= e.jobs[i].pj.BurstBufferBytes
		return
	}
	e.bbFree(nil, i, t)
	e.cl.bb.jobs[i].expStart = math.Inf(1)
}

// bbFree returns job i's space to the pool (teardown).
func (e *engine) bbFree(s *slurmState, i int, t float64) {
	b := &e.cl.bb.jobs[i]
	size := e.jobs[i].pj.BurstBufferBytes
	e.bbFlowEnd(i, t) // a requeued job's stage-in or a stage-out ends here
	e.cl.bbUsed -= size
	e.cl.bb.byteSeconds += float64(size) * (t - b.allocAt)
	b.phase = bbNone
	if s != nil {
		s.requestPass(t)
		s.bfChanged = true
	}
}

// bbNext is the next stage-in or stage-out completion (+Inf: none).
func (e *engine) bbNext() float64 {
	soon := math.Inf(1)
	if e.cl.bb == nil {
		return soon
	}
	for i := range e.cl.bb.jobs {
		switch b := &e.cl.bb.jobs[i]; b.phase {
		case bbStaging:
			soon = min(soon, b.readyAt)
		case bbStagingOut:
			soon = min(soon, b.freeAt)
		}
	}
	return soon
}

// bbAdvance completes the stage-ins and stage-outs due by t, in the order
// of their ends (each end may re-time the others when they share the
// pool's bandwidth); it reports whether any did (each frees space or lets
// a job start).
func (e *engine) bbAdvance(s *slurmState, t float64) bool {
	if e.cl.bb == nil {
		return false
	}
	any := false
	for {
		first, at := -1, math.Inf(1)
		for i := range e.cl.bb.jobs {
			b := &e.cl.bb.jobs[i]
			end := math.Inf(1)
			switch b.phase {
			case bbStaging:
				end = b.readyAt
			case bbStagingOut:
				end = b.freeAt
			}
			if end <= t && end < at {
				first, at = i, end
			}
		}
		if first < 0 {
			return any
		}
		if e.cl.bb.jobs[first].phase == bbStaging {
			e.bbStaged(s, first, at)
		} else {
			e.bbFree(s, first, at)
		}
		any = true
	}
}

// bbView adds to a Slurm-mode snapshot what the planner reads about burst
// buffers: each pending job's burst_buffer_state and the pool's bandwidth;
// with Config.HideBurstBuffer the planner sees no pool at all (the
// burst-buffer-unaware what-if).
func (e *engine) bbView(snap *planner.Snapshot) {
	if e.cfg.HideBurstBuffer {
		snap.BurstBufferPools = nil
		return
	}
	if e.cl.bb == nil {
		return
	}
	for k := range snap.BurstBufferPools {
		snap.BurstBufferPools[k].BandwidthBps = e.cl.spec.BurstBufferBps
		snap.BurstBufferPools[k].TotalBandwidthBps = e.cl.spec.BurstBufferPoolBps
	}
	for k := range snap.Jobs {
		v := &snap.Jobs[k]
		i := int(v.ID) - 1
		if v.BurstBufferBytes <= 0 || i < 0 || i >= len(e.jobs) {
			continue
		}
		v.BurstBufferState = bbStateNames[e.cl.bb.jobs[i].phase]
	}
}

// stageHint adds bb= (the data staged in, when it is less than the
// capacity) and bbout= (the data staged out) to a job's strata: hint, as a
// user would write them; comments without a hint are left alone.
func stageHint(comment string, tj *TraceJob) string {
	if comment == "" {
		return comment
	}
	if tj.BBInBytes > 0 && tj.BBInBytes < tj.BBBytes {
		comment = fmt.Sprintf("%s bb=%d", comment, tj.BBInBytes)
	}
	if tj.BBOutBytes > 0 {
		comment = fmt.Sprintf("%s bbout=%d", comment, tj.BBOutBytes)
	}
	return comment
}

// bbStateNames are Slurm's burst_buffer_state values for each phase.
var bbStateNames = map[bbPhase]string{bbNone: "pending", bbStaging: "staging-in", bbStaged: "staged-in",
	bbRunning: "running", bbStagingOut: "staging-out"}
