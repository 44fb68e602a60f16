package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Parameter-server jobs (strata simulate --ps-share, issue 24.1): a
// what-if that makes a seeded share of a trace's jobs PS jobs of the
// catalog's layered models, as in the SMD paper's setting, so that the
// planner's choice of the server count (and Slurm allocating the servers
// it chose, as tasks of the job) can be measured against fixed choices
// (planner.Options.PSChoice: P = W, P = 1) and Slurm alone. Slurm mode
// only: the server count a job runs with is the one Strata wrote into its
// admin comment (decide.Written.PS), 1 when nothing was written.

// PSModels are the catalog models a PS job is drawn from: two
// communication-bound (vgg16, alexnet: many parameters per FLOP) and four
// compute-bound image models.
var PSModels = []string{"vgg16", "alexnet", "resnet50", "resnet101", "inception_v3", "densenet121"}

// psBatch is the per-worker batch of a PS job (the catalog's profiles are
// at batch 64).
const psBatch = 64

// psWorkerCPUs is the CPUs a PS job asks per GPU worker (the traces have
// no CPU column; a job without one would ask its GPUs' share of the node,
// all of a full node's CPUs, leaving none for servers beside its
// workers): every task of the job, worker or server, gets as many
// (cpus_per_task is one value per job).
const psWorkerCPUs = 4

// psWorkerMemMB is the host memory a PS job asks per GPU worker when the
// trace gives none (for the same reason: a node's share would leave its
// servers none).
const psWorkerMemMB = 16384

// MakePS returns a copy of tr in which each job with GPUs is, with
// probability share (drawn with seed, in submission order), a PS job: its
// model is drawn from PSModels, its per-worker batch is 64, it asks
// psWorkerCPUs CPUs and psWorkerMemMB MB per GPU (when the trace gives
// none), and its work is
// the samples that its trace duration takes at its requested GPUs with one
// parameter server (the status quo: nothing allocates more servers), by
// the planner's time model on nodes of nodeGPUs GPUs. Its run time on w
// workers and p servers is then the trace's duration scaled by that model
// (PSSeconds). Jobs that are not drawn are left as they are.
func MakePS(tr *Trace, share float64, seed uint64, nodeGPUs int) *Trace {
	if share <= 0 {
		return tr
	}
	out := *tr
	out.Jobs = slices.Clone(tr.Jobs)
	r := rand.New(rand.NewPCG(seed, 0x5053))
	for k := range out.Jobs {
		j := &out.Jobs[k]
		draw, model := r.Float64(), PSModels[r.IntN(len(PSModels))]
		if draw >= share || j.GPUs < 1 || j.Duration <= 0 {
			continue
		}
		ps := *j
		ps.PS, ps.Model, ps.BatchSize, ps.Iterations = true, model, psBatch, 1000
		if ps.CPUs <= 0 {
			ps.CPUs = psWorkerCPUs * j.GPUs
		}
		if ps.MemoryMB <= 0 {
			ps.MemoryMB = psWorkerMemMB * int64(j.GPUs)
		}
		t1000, ok := psModelSeconds(&ps, j.GPUs, 1, nodeGPUs)
		if !ok {
			continue
		}
		ps.Iterations = max(1, int64(math.Round(1000*j.Duration/t1000)))
		*j = ps
	}
	return &out
}

// psHint is a PS job's work for the planner: the samples of its
// iterations at its batch on its requested GPUs.
func psHint(j *TraceJob) string {
	return samplesHint(j) + " arch=ps"
}

// psComment is the hint a PS job's user writes: its model and work, the
// GPU range of r, and ps=auto (the planner chooses the servers).
func (r HintRange) psComment(t Truth, j *TraceJob, clusterGPUs int) string {
	claimed := *j
	if s := j.ClaimScale; s > 0 && s != 1 {
		claimed.Iterations = max(1, int64(math.Round(float64(j.Iterations)*s)))
	}
	if j.NoHint {
		return ""
	}
	return fmt.Sprintf("strata: %s gpus=1-%d ps=auto", psHint(&claimed), r.max(t, j, clusterGPUs))
}

// psModelSeconds is the planner's time model of PS job j on w workers and
// p servers, nodes of nodeGPUs GPUs.
func psModelSeconds(j *TraceJob, w, p, nodeGPUs int) (float64, bool) {
	pj := planner.Job{ID: 1, GPUsPerJob: j.GPUs, Nodes: 1, Comment: "strata: " + psHint(j) + fmt.Sprintf(" ps=1-%d", max(1, p))}
	d, r, err := planner.EstimateDuration(&pj, max(1, w), max(1, p), planner.Options{NodeGPUs: nodeGPUs})
	if err != nil || r != planner.ReasonModelled || d <= 0 {
		return 0, false
	}
	return d.Seconds(), true
}

// PSSeconds is the true run time of PS job j on w workers and p servers:
// its trace duration (at its request with one server) scaled by the
// planner's time model.
func PSSeconds(j *TraceJob, w, p, nodeGPUs int) (float64, bool) {
	base, ok1 := psModelSeconds(j, j.GPUs, 1, nodeGPUs)
	at, ok2 := psModelSeconds(j, w, p, nodeGPUs)
	if !ok1 || !ok2 {
		return j.Duration * float64(j.GPUs) / float64(max(1, w)), true
	}
	return j.Duration * at / base, false
}

// psServers is the server count job j runs with: what Strata wrote (its
// admin comment), else 1.
func psServers(j *job) int {
	if w, ok := decide.ParseAdminComment(j.pj.AdminComment); ok && w.PS > 0 {
		return w.PS
	}
	return 1
}

// writeTasks applies a PS decision's tasks to a pending job as slurmrestd
// would (slurm.psTasksUpdate): GPUs per node on NodeCount nodes, Tasks
// tasks of CPUsPerTask CPUs, the memory per node. It reports whether the
// decision had tasks.
func writeTasks(p *planner.Job, d planner.Decision) bool {
	if d.Tasks <= 0 || d.GPUsPerNode <= 0 || p.GPUsPerTask > 0 {
		return false
	}
	nodes := max(1, d.NodeCount)
	p.GPUsPerJob, p.GPUsPerNode, p.Nodes = 0, d.GPUsPerNode, nodes
	p.Tasks, p.TasksPerNode = d.Tasks, d.TasksPerNode
	if d.CPUsPerTask > 0 {
		p.CPUsPerTask, p.CPUs = d.CPUsPerTask, d.Tasks*d.CPUsPerTask
	}
	if d.MemoryPerNodeMB > 0 {
		p.MemoryMB = d.MemoryPerNodeMB * int64(nodes)
	}
	return true
}

// tasksNeed is what a job written as tasks takes on each of its nodes
// besides its GPUs: its tasks per node × CPUs per task, its memory per
// node; false for any other job.
func tasksNeed(p *planner.Job) (int, int64, bool) {
	if p.TasksPerNode <= 0 || p.CPUsPerTask <= 0 || p.Tasks <= p.GPUs() {
		return 0, 0, false
	}
	return p.TasksPerNode * p.CPUsPerTask, p.MemoryMB / int64(max(1, p.Nodes)), true
}
