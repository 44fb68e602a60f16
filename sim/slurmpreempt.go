package sim

import (
	"math"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Preemption in Slurm mode, as on a real cluster with stock Slurm:
//
//  1. signal: a preempt decision that passed the daemon's guards sends the
//     job its checkpoint signal. It keeps its GPUs and makes no further
//     progress (its progress up to the signal is saved);
//  2. checkpoint: Config.CheckpointDelay later its trap has saved the
//     checkpoint and called scontrol requeue;
//  3. requeue: the job releases its GPUs and is pending again, with
//     Slurm's requeue bookkeeping (batch_requeue_fini() in job_mgr.c): its
//     submit time is reset to now (the queue's tie-break and the planner's
//     view), its begin time is now + SlurmConfig.RequeueDelay, its age
//     restarts from then; a priority Strata wrote sticks, as for any job.
//     The daemon rewrites its request to the decision's restart size
//     (counted against the per-job rewrite cap); later cycles may rewrite
//     it again, as any pending job;
//  4. restart: Slurm starts it when it fits, by priority, as any job; it
//     pays Config.RestartPenalty (start-up, restoring the checkpoint)
//     before it progresses again; its time limit counts from this start.
//
// The work lost to a restart (Result.LostGPUHours) is the GPU time held
// without progress: the checkpoint and the start-up.

// optIn adds preempt=yes to a job's comment (a hint of its own when it had
// none).
func optIn(comment string) string {
	if comment == "" {
		return "strata: preempt=yes"
	}
	return comment + " preempt=yes"
}

// signal sends running job i its checkpoint signal at t (a written preempt
// decision d: its size, when set, is the one it restarts at).
func (e *engine) signal(i int, d planner.Decision, t float64) {
	j := &e.jobs[i]
	j.requeueAt = t + e.cfg.CheckpointDelay.Seconds()
	j.penalty = math.Inf(1) // no progress from now on: the checkpoint holds what was done
	j.view = nil
	j.restartTo = planner.Decision{}
	if d.GPUsPerNode > 0 && d.GPUsPerNode*max(1, d.NodeCount) != j.gpus {
		j.restartTo = d
		e.res.Resizes++
	} else {
		e.res.Preemptions++
	}
	j.preempts = append(j.preempts, t)
	if e.onSignal != nil {
		e.onSignal(i, d, t)
	}
}

// requeue returns signalled job i to the queue at its requeueAt (its
// checkpoint is saved), as described above.
func (e *engine) requeue(s *slurmState, i int) {
	j := &e.jobs[i]
	t := j.requeueAt
	e.account(j, t-j.lastT)
	e.res.lostGPUSeconds += float64(j.gpus) * e.cfg.CheckpointDelay.Seconds()
	e.cl.release(j.slots)
	e.bbRequeued(i, t)
	j.slots, j.gpus, j.phase, j.view = nil, 0, phasePending, nil
	j.lastT, j.killAt, j.requeueAt = t, math.Inf(1), math.Inf(1)
	j.penalty = e.cfg.RestartPenalty.Seconds()
	j.restarts++
	j.slurmSubmit = t
	j.requeueBegin = t + s.conf.RequeueDelay.Seconds()
	j.begin, j.strataBegin = j.requeueBegin, 0
	if d := j.restartTo; d.GPUsPerNode > 0 {
		e.resize(j, d)
		s.rewrites[int64(i+1)]++
		w, _ := decide.ParseAdminComment(j.pj.AdminComment)
		w.Workers, w.PS = d.Workers, d.PS
		j.pj.AdminComment = w.String()
	}
	j.restartTo = planner.Decision{}
	j.prio = e.priority(s, j, t)
	e.running = deleteIndex(e.running, i)
	e.pending = insertSorted(e.pending, i)
}

// requeueDue requeues the signalled jobs whose checkpoint is saved by t
// (before a time limit that comes first, which kills them instead); it
// returns how many.
func (e *engine) requeueDue(s *slurmState, t float64) int {
	var due []int
	for _, i := range e.running {
		if j := &e.jobs[i]; j.requeueAt <= t && j.requeueAt <= j.killAt {
			due = append(due, i)
		}
	}
	for _, i := range due {
		e.requeue(s, i)
	}
	return len(due)
}

// preemptCounts are the preemptions of each job in the 24 hours up to t
// (the daemon reads them from its audit trail).
func (e *engine) preemptCounts(t float64) map[int64]int {
	out := map[int64]int{}
	for _, i := range e.running {
		if n := e.jobs[i].preemptsSince(t - planner.PreemptWindow.Seconds()); n > 0 {
			out[int64(i+1)] = n
		}
	}
	return out
}

// preemptsSince counts the job's signals after since.
func (j *job) preemptsSince(since float64) int {
	n := 0
	for _, p := range j.preempts {
		if p > since {
			n++
		}
	}
	return n
}

// preemptView adds to a job's Slurm view what the adapter and the daemon
// give the planner for preemption: the requeue flag and hint (set at
// submission), the time Strata signalled it, and its preemptions in the
// last 24 hours.
func (e *engine) preemptView(s *slurmState, v *planner.Job, i int, t float64) {
	j := &e.jobs[i]
	if !math.IsInf(j.requeueAt, 1) {
		v.Signalled = simTime(j.preempts[len(j.preempts)-1])
	}
	v.PreemptsToday = j.preemptsSince(t - planner.PreemptWindow.Seconds())
}

// resize rewrites a pending job's request to the decision's shape, as
// Strata's write does (CPUs and memory follow the GPUs).
func (e *engine) resize(j *job, d planner.Decision) {
	p := &j.pj
	if d.GPUsPerNode <= 0 || p.GPUsPerTask > 0 || writeTasks(p, d) {
		return
	}
	req := p.GPUs()
	total := d.GPUsPerNode * max(1, d.NodeCount)
	if p.GPUsPerJob > 0 && p.GPUsPerNode == 0 {
		p.GPUsPerJob = total
	} else {
		p.GPUsPerNode, p.Nodes = d.GPUsPerNode, max(1, d.NodeCount)
	}
	if req > 0 {
		p.CPUs = p.CPUs * total / req
		p.MemoryMB = p.MemoryMB * int64(total) / int64(req)
	}
}

// deleteIndex removes job index i from a list.
func deleteIndex(list []int, i int) []int {
	for k, x := range list {
		if x == i {
			return append(list[:k], list[k+1:]...)
		}
	}
	return list
}

// preemptible reports whether a job's snapshot view may be preempted (the
// planner's rule; a preempt of any other job is a policy bug).
func preemptible(v *planner.Job) bool {
	ok, _ := planner.Preemptible(v)
	return ok
}
