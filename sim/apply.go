package sim

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// plan builds the snapshot of tick k, asks the policy and applies the
// plan. It returns the number of jobs started.
func (e *engine) plan(ctx context.Context, k int64, t float64) (int, error) {
	snap := e.snapshot(k, t, nil)
	began := time.Now()
	pl, err := e.policy.Plan(ctx, snap)
	e.res.PlanTime += time.Since(began)
	e.res.PlanCalls++
	if err != nil {
		return 0, fmt.Errorf("plan at t=%.0fs: %w", t, err)
	}
	return e.apply(pl.Decisions, t), nil
}

// snapshot renders the cluster as the slurm adapter would: nodes by name,
// one partition, pending and running jobs by ID.
func (e *engine) snapshot(k int64, t float64, ss *slurmState) *planner.Snapshot {
	spec := e.cl.spec
	s := &planner.Snapshot{
		ID:      fmt.Sprintf("sim-%d", k),
		Now:     simTime(t),
		Cluster: "sim",
		// The previous snapshot's buffers are reused: nothing keeps a
		// snapshot after its cycle.
		Nodes: e.cl.snapshotNodes(e.snapNodes),
		Jobs:  slices.Grow(e.snapJobs[:0], len(e.pending)+len(e.running)),
	}
	s.Partitions = e.cl.snapshotPartitions()
	if spec.BurstBufferBytes > 0 {
		s.BurstBufferPools = []planner.BurstBufferPool{{Name: "bb", CapacityBytes: spec.BurstBufferBytes, UsedBytes: e.cl.bbUsed}}
	}
	slurm := ss != nil
	p, r := 0, 0 // merge the two ascending lists
	for p < len(e.pending) || r < len(e.running) {
		s.Jobs = s.Jobs[:len(s.Jobs)+1] // grown above; each view fills its slot whole
		v := &s.Jobs[len(s.Jobs)-1]
		if r == len(e.running) || (p < len(e.pending) && e.pending[p] < e.running[r]) {
			if slurm {
				e.slurmPending(v, ss, e.pending[p], t)
			} else {
				e.pendingView(v, e.pending[p])
				v.PreemptsToday = e.jobs[e.pending[p]].preemptsSince(t - planner.PreemptWindow.Seconds())
			}
			p++
		} else {
			e.runningView(v, e.running[r])
			if slurm {
				e.slurmRunning(ss, v, e.running[r], t)
			} else {
				v.PreemptsToday = e.jobs[e.running[r]].preemptsSince(t - planner.PreemptWindow.Seconds())
			}
			r++
		}
	}
	e.snapNodes, e.snapJobs = s.Nodes, s.Jobs
	e.bbView(s)
	if c := e.cfg.calib; c != nil {
		s.Calibration = c.current()
	}
	if pw := e.partitionPower(); pw != nil { // per-type power for the energy term
		cal := planner.Calibration{Power: pw}
		if s.Calibration != nil {
			cal.Speed = s.Calibration.Speed
		}
		s.Calibration = &cal
	}
	return s
}

// pendingView sets *v to pending job i's view.
func (e *engine) pendingView(v *planner.Job, i int) {
	j := &e.jobs[i]
	*v = j.pj
	v.AttainedGPUSeconds, v.Restarts = j.attained, j.restarts
}

// runningView sets *v to running job i's view.
func (e *engine) runningView(v *planner.Job, i int) {
	j := &e.jobs[i]
	if j.view == nil {
		j.view = e.allocView(j)
	}
	*v = *j.view
	v.AttainedGPUSeconds, v.Restarts = j.attained, j.restarts
}

// allocView renders a running job's allocation once per start or resize
// (snapshots share its slices; policies never modify a snapshot).
func (e *engine) allocView(j *job) *planner.Job {
	pj := j.pj
	pj.State, pj.StartTime = planner.JobRunning, simTime(j.runStart)
	pj.GPUsPerJob, pj.GPUsPerNode, pj.Nodes = j.gpus, 0, len(j.slots)
	// CPUs and memory follow the GPUs the job holds now (the cluster accounts
	// them per GPU too): a job resized to fewer GPUs must not keep claiming
	// its submit-time CPUs, or the policy sees phantom usage and cannot grow
	// other jobs into the freed capacity.
	if req := j.pj.GPUs(); req > 0 && j.gpus != req {
		pj.CPUs = j.pj.CPUs * j.gpus / req
		pj.MemoryMB = j.pj.MemoryMB * int64(j.gpus) / int64(req)
	}
	pj.NodeList = make([]string, len(j.slots))
	pj.GPUAlloc = make([]planner.GPUAllocation, len(j.slots))
	uniform := true
	for n, sl := range j.slots {
		name := e.cl.nodes[sl.node].name
		pj.NodeList[n] = name
		pj.GPUAlloc[n] = planner.GPUAllocation{Node: name, Indices: append([]int(nil), sl.idx...)}
		uniform = uniform && len(sl.idx) == len(j.slots[0].idx)
	}
	if uniform && len(j.slots) > 0 {
		pj.GPUsPerNode = len(j.slots[0].idx)
	}
	return &pj
}

// apply executes a plan: preemptions, then resizes (see resizeAll), then
// starts in rank order. Preempt and resize decisions of policies held
// to production honesty are ignored and counted as violations.
func (e *engine) apply(ds []planner.Decision, t float64) int {
	var resizes, starts []*planner.Decision
	for n := range ds {
		d := &ds[n]
		i := int(d.JobID) - 1
		if i < 0 || i >= len(e.jobs) {
			e.res.UnknownJobs++
			continue
		}
		j := &e.jobs[i]
		switch {
		case d.Action == planner.ActionPreempt && !e.reshape && j.phase == phaseRunning && e.cfg.Preemptible:
			e.preempt(i) // the job opted in: it restarts when a plan starts it again
			j.preempts = append(j.preempts, t)
		case d.Action == planner.ActionPreempt || d.Action == planner.ActionResize:
			if !e.reshape {
				e.res.HonestyViolations++
				continue
			}
			if j.phase != phaseRunning {
				continue
			}
			if d.Action == planner.ActionPreempt {
				e.preempt(i)
			} else if shapeGPUs(d) > 0 {
				resizes = append(resizes, d)
			}
		case d.Start && j.phase == phasePending:
			starts = append(starts, d)
		}
	}
	e.resizeAll(resizes, t)
	sort.SliceStable(starts, func(a, b int) bool {
		if starts[a].Rank != starts[b].Rank {
			return starts[a].Rank < starts[b].Rank
		}
		return starts[a].JobID < starts[b].JobID
	})
	n := 0
	for _, d := range starts {
		if e.start(int(d.JobID)-1, d, t) {
			n++
		}
	}
	if n > 0 {
		e.compactPending()
	}
	return n
}

// shapeGPUs is the GPU count a decision asks for.
func shapeGPUs(d *planner.Decision) int {
	if n := d.GPUsPerNode * d.NodeCount; n > 0 {
		return n
	}
	return d.Workers
}
