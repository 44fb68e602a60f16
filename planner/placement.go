package planner

import (
	"math"
	"slices"
	"sort"
)

// shape is a Slurm GPU request: GPUsPerNode × Nodes. A parameter-server
// job written as tasks (servers.go) also has spn server tasks on each node,
// every task (worker or server) with cpt CPUs, and srvMem MB per server;
// spn = 0 is a job written by its GPUs alone.
type shape struct {
	gpn, nodes int
	spn, cpt   int
	srvMem     int64
}

// perNode is what the shape asks of each of its nodes besides GPUs: the
// CPUs and memory (MB) of its workers, and of its servers when it has
// any. This is what the planner reserves and, for a PS job written as
// tasks, what Strata writes (tasks per node × CPUs per task, memory per
// node).
func (s shape) perNode(cpuPerW float64, memPerW int64) (cpu int, mem int64) {
	if s.spn > 0 {
		return (s.gpn + s.spn) * s.cpt, memPerW*int64(s.gpn) + int64(s.spn)*s.srvMem
	}
	return cpuNeed(cpuPerW, s.gpn), memPerW * int64(s.gpn)
}

// shapeFor picks the shape for w workers in the island: one node when a
// node is large enough (packing), else the largest per-node count that
// divides w and that enough usable nodes can hold. ok is false when no
// node set of the partition can hold w workers with their CPUs and memory,
// even when idle.
func (c *cycle) shapeFor(isl *island, w int, cpuPerW float64, memPerW int64) (shape, bool) {
	if isl == nil || w < 1 {
		return shape{}, false
	}
	for g := min(w, isl.maxGPN); g >= 1; g-- {
		if w%g != 0 || isl.atLeast[g] < w/g {
			continue
		}
		if c.staticFits(isl, g, w/g, cpuNeed(cpuPerW, g), memPerW*int64(g)) {
			return shape{gpn: g, nodes: w / g}, true
		}
	}
	return shape{}, false
}

// sizeShape is the shape of the job's size (its request clamped into the
// user's range).
func (c *cycle) sizeShape(ji *jobInfo) (shape, bool) {
	if ji.size == ji.req {
		return c.jobShape(ji)
	}
	return c.shapeFor(ji.isl, ji.size, ji.cpuPerW, ji.memPerW)
}

// jobShape is the shape of the job's own request (fixed-size jobs).
func (c *cycle) jobShape(ji *jobInfo) (shape, bool) {
	j := ji.job
	if j.GPUsPerJob == 0 && j.GPUsPerNode > 0 {
		s := shape{gpn: j.GPUsPerNode, nodes: max(1, j.Nodes)}
		ok := ji.isl != nil && s.gpn <= ji.isl.maxGPN && ji.isl.atLeast[s.gpn] >= s.nodes &&
			c.staticFits(ji.isl, s.gpn, s.nodes, cpuNeed(ji.cpuPerW, s.gpn), ji.memPerW*int64(s.gpn))
		return s, ok
	}
	return c.shapeFor(ji.isl, ji.req, ji.cpuPerW, ji.memPerW)
}

func cpuNeed(perW float64, g int) int { return int(math.Ceil(perW*float64(g) - 1e-9)) }

// staticFits reports whether n usable nodes of the island could hold g
// GPUs, cpu CPUs and mem MB each when idle.
// Answers are memoised per island.
func (c *cycle) staticFits(isl *island, g, n, cpu int, mem int64) bool {
	key := [4]int64{int64(g), int64(n), int64(cpu), mem}
	if v, ok := isl.static[key]; ok {
		return v
	}
	cnt := 0
	for _, i := range isl.nodes {
		nd := &c.nodes[i]
		if nd.gpus >= g && nd.cpus >= cpu && nd.mem >= mem {
			cnt++
		}
	}
	isl.static[key] = cnt >= n
	return cnt >= n
}

// canPlace reports whether place would succeed now, reserving nothing.
func (c *cycle) canPlace(isl *island, s shape, cpuPerW float64, memPerW int64) bool {
	if s.gpn < 1 || s.nodes < 1 {
		return false
	}
	cpu, mem := s.perNode(cpuPerW, memPerW)
	n := 0
	for _, i := range isl.nodes {
		if nd := &c.nodes[i]; nd.freeGPU >= s.gpn && nd.freeCPU >= cpu && nd.freeMem >= mem {
			if n++; n == s.nodes {
				return true
			}
		}
	}
	return false
}

// place finds nodes with free capacity for the shape, best fit (fewest
// free GPUs that still fit, then name order), and reserves them. It
// returns the node indices, or false and reserves nothing.
func (c *cycle) place(isl *island, s shape, cpuPerW float64, memPerW int64) ([]int, bool) {
	cpu, mem := s.perNode(cpuPerW, memPerW)
	fits := func(nd *nodeState) bool {
		return nd.freeGPU >= s.gpn && nd.freeCPU >= cpu && nd.freeMem >= mem
	}
	var got []int
	if s.nodes == 1 {
		best := -1
		for _, i := range isl.nodes {
			if nd := &c.nodes[i]; fits(nd) && (best < 0 || nd.freeGPU < c.nodes[best].freeGPU) {
				best = i
				if nd.freeGPU == s.gpn {
					break
				}
			}
		}
		if best < 0 {
			return nil, false
		}
		got = []int{best}
	} else {
		for _, i := range isl.nodes {
			if fits(&c.nodes[i]) {
				got = append(got, i)
			}
		}
		if len(got) < s.nodes {
			return nil, false
		}
		slices.SortStableFunc(got, func(a, b int) int { return lessInt(c.nodes[a].freeGPU < c.nodes[b].freeGPU) })
		got = got[:s.nodes]
		sort.Ints(got)
	}
	for _, i := range got {
		c.nodes[i].freeGPU -= s.gpn
		c.nodes[i].freeCPU -= cpu
		c.nodes[i].freeMem -= mem
	}
	return got, true
}

// release returns a reservation made by place (or a running job's
// allocation) to the nodes.
func (c *cycle) release(nodes []int, s shape, cpuPerW float64, memPerW int64) {
	cpu, mem := s.perNode(cpuPerW, memPerW)
	for _, i := range nodes {
		c.nodes[i].freeGPU += s.gpn
		c.nodes[i].freeCPU += cpu
		c.nodes[i].freeMem += mem
	}
}

// nodeNames maps node indices to names.
func (c *cycle) nodeNames(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = c.nodes[i].name
	}
	return out
}

// free sums the island's free GPUs, CPUs and memory (MB).
func (c *cycle) free(isl *island) (gpu, cpu int, mem int64) {
	for _, i := range isl.nodes {
		gpu += c.nodes[i].freeGPU
		cpu += c.nodes[i].freeCPU
		mem += c.nodes[i].freeMem
	}
	return gpu, cpu, mem
}
