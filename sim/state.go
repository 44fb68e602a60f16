package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/history"
)

// simEpoch is the wall-clock time of simulated t = 0 (snapshots carry
// absolute times; policies never read a clock).
var simEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

func simTime(s float64) time.Time {
	return simEpoch.Add(time.Duration(math.Round(s * 1e9)))
}

type phase uint8

const (
	phaseFuture phase = iota
	phasePending
	phaseRunning
	phaseDone
	phaseDropped
)

// job is the simulation state of one trace job.
type job struct {
	tj    *TraceJob
	pj    planner.Job // the Slurm view (request fields fixed at arrival)
	phase phase
	// remaining is the fraction of the work left; dur the run time of the
	// whole job on the current allocation; penalty restart seconds left.
	remaining, dur, penalty float64
	gpus                    int
	minGPUs                 int // fewest GPUs the job may start with
	slots                   []slot
	view                    *planner.Job // cached running view; nil after a change
	lastT, runStart         float64
	firstStart, end         float64
	firstGPUs               int // GPUs at the first start
	// calibAtStart is the speed factor in force at its first start
	// (Config.Calibrate).
	calibAtStart float64
	attained     float64
	restarts     int
	// Slurm mode: the time limit (s), the job's Slurm priority (prioSet:
	// written by Strata, so it sticks), its begin time (s; 0 = none) and
	// the part of it Strata wrote, and when a running job hits its limit.
	limit, begin, strataBegin, killAt float64
	// kills counts the times Slurm ended the job at its time limit, its
	// work unfinished; each time its user resubmitted it (resubmit.go),
	// asking for userLimit again. ran is the run time of the current
	// submission, predicted what the planner predicted for it at its last
	// start, before any correction by its user's record (0: unknown);
	// unclaimed: that prediction did not come from the job's hint
	// (trust.Outcome.NoClaim).
	kills                     int
	userLimit, ran, predicted float64
	unclaimed                 bool
	prio                      int64
	prioSet                   bool
	// nice is the nice Strata wrote in the nice priority mode (Slurm
	// subtracts it from the multifactor priority; a priority written
	// resets it to 0, as slurmctld does).
	nice int64
	// Preemption in Slurm mode (slurmpreempt.go): requeueAt is when a
	// signalled job has checkpointed and requeues itself (+Inf: not
	// signalled); restartTo the request Strata rewrites it to then (total
	// 0: the size it had); slurmSubmit the submit time Slurm orders by
	// (reset at a requeue); requeueBegin the begin time a requeue set;
	// preempts the times it was signalled (for the daily cap).
	requeueAt, slurmSubmit, requeueBegin float64
	restartTo                            planner.Decision
	preempts                             []float64
}

// endAt is the completion time of a running job if nothing changes.
func (j *job) endAt() float64 { return j.lastT + j.penalty + j.remaining*j.dur }

// engine is one run's mutable state.
type engine struct {
	fs  *fairshare      // usage per user when the run models fairshare (sitepolicy.go)
	qos map[string]bool // users in QOS high (sitepolicy.go)
	// partPrio is SlurmConfig.PartitionPriority parsed (partprio.go).
	partPrio map[string]PartPriority
	cfg      Config
	name     string
	policy   planner.Policy
	reshape  bool
	cl       *cluster
	jobs     []job
	next     int   // index of the next job to arrive
	pending  []int // job indices, ascending (= ascending ID)
	running  []int
	done     int
	changed  bool // an arrival or completion since the last plan
	// idleSince is when jobs started waiting on an idle cluster (-1: not).
	idleSince float64
	busy      float64 // busy GPU-seconds
	// busyPart is busy GPU-seconds per partition (islands.go), for the
	// energy of partitions of different GPU types.
	busyPart []float64
	res      Result
	series   []Point
	// afterWrites, when set (tests), is called in Slurm mode after each of
	// Strata's cycles has written its plan, before Slurm acts on it.
	afterWrites func(s *slurmState, t float64, p planner.Plan)
	// onSignal, when set (tests), is called when a job is sent its
	// checkpoint signal (Slurm mode).
	onSignal func(i int, d planner.Decision, t float64)
	// onHeld, when set (tests), is called for a preempt the guards held.
	onHeld func(v decide.Verdict, t float64)
	// trust holds the users' records (Slurm mode with a policy; nil
	// otherwise: resubmit.go).
	trust *trustState
	// optIns counts the jobs that opted in to preemption (preempt=yes and
	// requeueable: checkpoints): with none, Strata never stops a running
	// job in Slurm mode (nothingToWrite).
	optIns int
	// bf is the last backfill cycle's plan, whose buffers the next reuses.
	bf *bfPlan
	// snapNodes and snapJobs are the last snapshot's buffers, reused by
	// the next (apply.go).
	snapNodes []planner.Node
	snapJobs  []planner.Job
}

func newEngine(cfg Config, tr *Trace, name string, p planner.Policy) *engine {
	e := &engine{cfg: cfg, name: name, policy: p, reshape: MayReshape(name), cl: newCluster(cfg.Cluster), idleSince: -1}
	e.busyPart = make([]float64, len(cfg.Cluster.Parts))
	e.cl.need = e.nodeNeed
	e.res.Policy = name
	e.res.Predictor = "oracle"
	e.jobs = make([]job, len(tr.Jobs))
	total := cfg.Cluster.TotalGPUs()
	for i := range tr.Jobs {
		tj := &tr.Jobs[i]
		j := &e.jobs[i]
		j.tj, j.firstStart, j.remaining = tj, -1, 1
		j.requeueAt, j.slurmSubmit = math.Inf(1), tj.Submit
		j.pj = e.requestView(int64(i+1), tj)
		j.minGPUs = tj.GPUs
		if checkpoints(&j.pj) {
			e.optIns++
		}
		if h, ok, err := planner.ParseHints(j.pj.Comment); ok && err == nil && h.GPUMin > 0 {
			j.minGPUs = min(tj.GPUs, h.GPUMin)
		}
		if tj.GPUs > total || (cfg.Cluster.BurstBufferBytes > 0 && tj.BBBytes > cfg.Cluster.BurstBufferBytes) || e.neverFits(i) {
			j.phase = phaseDropped
			e.res.Dropped++
		}
	}
	return e
}

// requestView is the pending Slurm job of a trace row: per-node GPUs when
// the request divides evenly over its nodes, else a per-job count.
func (e *engine) requestView(id int64, tj *TraceJob) planner.Job {
	spec := e.cl.spec
	nodes := tj.Nodes
	if nodes <= 0 {
		nodes = (tj.GPUs + spec.GPUsPerNode - 1) / spec.GPUsPerNode
	}
	nodes = max(1, nodes)
	pj := planner.Job{
		ID: id, Name: tj.Name, User: tj.User, Partition: spec.Partition, State: planner.JobPending,
		SubmitTime: simTime(tj.Submit), Priority: 1, GPUType: spec.jobGPUType(), Nodes: nodes,
		Comment: deadlineHint(e.cfg.Range.comment(e.cfg.Truth, tj, spec.TotalGPUs()), tj),
	}
	if tj.Hint != "" { // the user's own hint (a site's history)
		pj.Comment = deadlineHint(tj.Hint, tj)
	}
	pj.CPUs, pj.MemoryMB = e.jobResources(tj)
	if tj.BBBytes > 0 && spec.BurstBufferBytes > 0 {
		pj.BurstBuffer = fmt.Sprintf("#BB capacity=%d", tj.BBBytes)
		pj.BurstBufferPool, pj.BurstBufferBytes = "bb", tj.BBBytes
		pj.Comment = stageHint(pj.Comment, tj)
	}
	if names := spec.partitionNames(); len(names) > 1 { // sbatch -p a,b: every partition
		pj.Partition, pj.Partitions = strings.Join(names, ","), names
	}
	if tj.Partition != "" { // the partitions the job listed (a site's history)
		pj.Partition, pj.Partitions = tj.Partition, strings.Split(tj.Partition, ",")
	}
	if pj.Name == "" {
		pj.Name = "job-" + tj.ID
	}
	if pj.User == "" {
		pj.User = "user"
	}
	if e.cfg.Preemptible { // every job opted in: preempt=yes, requeueable
		pj.Requeue = true
		pj.Comment = optIn(pj.Comment)
	} else if tj.ClaimPreempt { // says it may be preempted, never lets Slurm requeue it
		pj.Comment = optIn(pj.Comment)
	}
	if tj.GPUs%nodes == 0 && tj.GPUs/nodes <= spec.GPUsPerNode {
		pj.GPUsPerNode = tj.GPUs / nodes
	} else {
		pj.GPUsPerJob = tj.GPUs
	}
	return pj
}

// advance moves running jobs to time t, completing those that end by t.
func (e *engine) advance(t float64) {
	kept := e.running[:0]
	for _, i := range e.running {
		j := &e.jobs[i]
		if end := j.endAt(); end <= t {
			e.account(j, end-j.lastT)
			e.cl.release(j.slots)
			e.bbEnded(i, end)
			j.slots, j.phase, j.end, j.remaining = nil, phaseDone, end, 0
			if c := e.cfg.calib; c != nil {
				c.ended(j, end, false)
			}
			e.runEnded(i, end, false)
			if l := e.cfg.learn; l != nil && j.kills == 0 {
				l.Add(history.Record{User: j.pj.User, Name: j.pj.Name, Partition: j.pj.Partition, GPUs: j.tj.GPUs,
					Duration: time.Duration((end - j.firstStart) * float64(time.Second)), Limit: time.Duration(j.userLimit * float64(time.Second))})
			}
			e.done++
			e.changed = true
			continue
		}
		dt := t - j.lastT
		e.account(j, dt)
		p := min(dt, j.penalty)
		j.penalty -= p
		if j.dur > 0 {
			j.remaining = max(0, j.remaining-(dt-p)/j.dur)
		}
		j.lastT = t
		kept = append(kept, i)
	}
	e.running = kept
}

func (e *engine) account(j *job, dt float64) {
	gs := float64(j.gpus) * dt
	e.chargeUsage(j, gs)
	j.attained += gs
	j.ran += dt
	e.busy += gs
	if len(j.slots) > 0 && len(e.busyPart) > 0 {
		e.busyPart[e.cl.nodes[j.slots[0].node].part] += gs
	}
}

// arrive moves jobs submitted by t into the pending queue.
func (e *engine) arrive(t float64) {
	for ; e.next < len(e.jobs) && e.jobs[e.next].tj.Submit <= t; e.next++ {
		j := &e.jobs[e.next]
		if j.phase == phaseDropped {
			continue
		}
		j.phase = phasePending
		e.changed = true
		e.pending = append(e.pending, e.next) // arrivals come in index order
	}
}

// sample records the cluster state at a simulated tick.
func (e *engine) sample(t float64) {
	used := e.cl.spec.TotalGPUs() - e.cl.free
	if n := len(e.series); n > 0 && e.series[n-1].Busy == used && e.series[n-1].Pending == len(e.pending) {
		return // unchanged; plots draw steps
	}
	e.series = append(e.series, Point{T: t, Busy: used, Pending: len(e.pending)})
}

// insertSorted adds i to an ascending index list.
func insertSorted(list []int, i int) []int {
	at, _ := slices.BinarySearch(list, i)
	return slices.Insert(list, at, i)
}
