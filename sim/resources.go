package sim

import "math"

// jobResources is the CPUs and memory (MB) a trace job asks Slurm for: its
// trace's cpus and memory_mib when given, else the node's share per GPU
// (CPUsPerNode/GPUsPerNode and MemoryMBPerNode/GPUsPerNode per GPU, which
// never binds). Slurm scales both with the GPUs on each node, as for
// --cpus-per-gpu and --mem-per-gpu (nodeNeed).
func (e *engine) jobResources(tj *TraceJob) (cpus int, memMB int64) {
	spec := e.cl.spec
	cpus = tj.GPUs * (spec.CPUsPerNode / spec.GPUsPerNode)
	memMB = int64(tj.GPUs) * (spec.MemoryMBPerNode / int64(spec.GPUsPerNode))
	if tj.CPUs > 0 {
		cpus = tj.CPUs
	}
	if tj.MemoryMB > 0 {
		memMB = tj.MemoryMB
	}
	return cpus, memMB
}

// nodeNeed is what job owner (index+1) takes besides g GPUs on one node:
// its CPUs and memory per GPU of its current request times g, CPUs rounded
// up — the planner's own rule (cpuNeed, memPerW in planner/placement.go),
// so that a placement the planner checked fits here too.
func (e *engine) nodeNeed(owner, g int) (int, int64) {
	j := &e.jobs[owner-1]
	if cpu, mem, ok := tasksNeed(&j.pj); ok { // a PS job's servers (psshare.go)
		return cpu, mem
	}
	req := j.pj.GPUs()
	if req <= 0 {
		return 0, 0
	}
	perW := float64(j.pj.CPUs) / float64(req)
	return int(math.Ceil(perW*float64(g) - 1e-9)), j.pj.MemoryMB / int64(req) * int64(g)
}

// neverFits reports a job whose CPUs or memory no set of idle nodes can
// hold with its GPUs (in one partition): Slurm would never start it, so it
// is dropped before the run, like a job larger than the cluster.
func (e *engine) neverFits(i int) bool {
	spec := e.cl.spec
	spec.Nodes = 0 // the nodes of the largest partition
	for _, p := range e.cl.spec.partitions() {
		spec.Nodes = max(spec.Nodes, p.Nodes)
	}
	per, nodes, total := request(&e.jobs[i])
	fits := func(g int) bool {
		cpu, mem := e.nodeNeed(i+1, g)
		return cpu <= spec.CPUsPerNode && mem <= spec.MemoryMBPerNode
	}
	if per >= 1 {
		return per > spec.GPUsPerNode || !fits(per) || nodes > spec.Nodes
	}
	most := 0
	for g := min(total, spec.GPUsPerNode); g > 0; g-- {
		if fits(g) {
			most = g
			break
		}
	}
	return most*spec.Nodes < total
}
