package planner

// Parameter servers that Slurm allocates (issue 24.1). A PS job planned
// with W workers on a shape of G GPUs × N nodes and P servers is written as
// W + P tasks of one (homogeneous) job: N nodes, (G + P/N) tasks on each
// node (Slurm's tasks_per_node, so that every node runs G workers and P/N
// servers), every task with the same CPUs (cpus_per_task), G GPUs per node
// (tres_per_node) and the memory of its workers and servers per node. The
// job's script starts the tasks with `srun --multi-prog` from the file
// `strata env --multi-prog` writes: on each node the first G local ranks
// are workers bound to one GPU each, the others servers without one. The
// planner reserves exactly that (shape.perNode), in its knapsack and at
// placement.

// psServerBaseMB is the memory of a server process besides its share of
// the parameters (runtime, buffers, connections), in MB.
const psServerBaseMB = 256

// serverTasks reports whether the job's servers can be written as tasks:
// its GPUs are not a per-task request (that is the user's own layout; a
// per-job --gpus total is rewritten per node, so that every node has its
// workers' GPUs) and its CPUs and memory are not per GPU (a --cpus-per-gpu
// job cannot also take cpus_per_task, and per-GPU memory gives servers
// none).
func serverTasks(ji *jobInfo) bool {
	j := ji.job
	return ji.pmax > 0 && j.GPUsPerTask == 0 && !j.CPUsPerGPU && !j.MemoryPerGPU && !ji.keep
}

// taskCPUs is the CPUs of one task of a PS job written as tasks: one
// worker's share of the job's CPUs, rounded up (at least 1).
func taskCPUs(ji *jobInfo) int { return max(1, cpuNeed(ji.cpuPerW, 1)) }

// serverMemMB is the host memory of one of p servers: its share of the
// model's fp32 parameters four times over (weights, the gradients it
// accumulates, two optimizer states, as for a worker's GPU memory) plus
// psServerBaseMB. 0 when the job asks no memory (Slurm then gives it what
// it gives any job without --mem, and the planner counts none).
func serverMemMB(ji *jobInfo, p int) int64 {
	if ji.memPerW <= 0 || p < 1 {
		return 0
	}
	var params float64
	if s := ji.model.summary; s != nil {
		params = s.paramBytes
	}
	return int64(4*params/float64(p))>>20 + psServerBaseMB
}

// withServers turns worker shape sh into the shape of the job with about p
// servers: p rounded to a multiple of the shape's nodes (up, unless that
// leaves the hint's ps= range; then down), spread evenly over them. It
// returns the shape, the server count, and false when no count of the
// range divides over the nodes or the nodes could not hold the servers
// beside the workers even when idle. A job whose servers cannot be
// written as tasks (serverTasks) keeps sh and p.
func (c *cycle) withServers(ji *jobInfo, sh shape, p int) (shape, int, bool) {
	if p < 1 || sh.nodes < 1 || !serverTasks(ji) {
		return sh, p, true
	}
	n := sh.nodes
	up, down := (p+n-1)/n*n, p/n*n
	switch {
	case ji.psAuto || up <= ji.pmax:
		p = up
	case down >= max(1, ji.pmin):
		p = down
	default:
		return sh, p, false
	}
	sh.spn, sh.cpt, sh.srvMem = p/n, taskCPUs(ji), serverMemMB(ji, p)
	if ji.isl != nil {
		cpu, mem := sh.perNode(ji.cpuPerW, ji.memPerW)
		if !c.staticFits(ji.isl, sh.gpn, n, cpu, mem) {
			return sh, p, false
		}
	}
	return sh, p, true
}

// taskLayout fills a PS decision's tasks from its shape: W + P tasks,
// G + P/N per node, CPUs per task, and the memory per node of its workers
// and servers (when the job asks for memory).
func taskLayout(d *Decision, sh shape, memPerW int64) {
	if sh.spn <= 0 || d.PS <= 0 || d.Action != ActionUpdate {
		return
	}
	d.TasksPerNode = sh.gpn + sh.spn
	d.Tasks = d.TasksPerNode * max(1, sh.nodes)
	d.CPUsPerTask = sh.cpt
	if _, mem := sh.perNode(0, memPerW); mem > 0 {
		d.MemoryPerNodeMB = mem
	}
}

// serversWritten corrects the per-worker CPUs and memory of a PS job that
// runs more tasks than GPUs (its servers written as tasks, by Strata or by
// its user): its CPUs are per task, and its memory holds its servers'
// beside its workers'. Without it a job's servers would count again as
// workers' resources at every cycle.
func serversWritten(ji *jobInfo) {
	j := ji.job
	srv := j.Tasks - ji.req
	if !serverTasks(ji) || srv < 1 || ji.req < 1 {
		return
	}
	if j.CPUsPerTask > 0 {
		ji.cpuPerW = float64(j.CPUsPerTask)
	}
	if ji.memPerW > 0 {
		ji.memPerW = max(1, (j.MemoryMB-int64(srv)*serverMemMB(ji, srv))/int64(ji.req))
	}
}
