package sim

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/planner"
)

// ClusterSpec describes a homogeneous simulated cluster: Nodes nodes of
// GPUsPerNode GPUs of one type, in one partition.
type ClusterSpec struct {
	Nodes       int
	GPUsPerNode int
	// GPUType is the GRES type, lower case ("" = untyped).
	GPUType string
	// CPUsPerNode and MemoryMBPerNode default to 12 CPUs and 48 GiB per GPU
	// (an AWS g4dn.12xlarge has 48 vCPUs and 192 GiB for 4 T4). Jobs get
	// CPUs and memory in proportion to their GPUs, so these never bind.
	CPUsPerNode     int
	MemoryMBPerNode int64
	// Partition is the partition name; default "gpu".
	Partition string
	// BurstBufferBytes is the capacity of one shared burst-buffer pool
	// ("bb"); 0 = no pool.
	BurstBufferBytes int64
}

var clusterRe = regexp.MustCompile(`^(\d+)x(\d+)(?::([A-Za-z0-9_.-]+))?$`)

// ParseCluster parses NODESxGPUS[:TYPE], e.g. "16x4:t4".
func ParseCluster(s string) (ClusterSpec, error) {
	m := clusterRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ClusterSpec{}, fmt.Errorf("cluster %q: want NODESxGPUS[:TYPE], e.g. 16x4:t4", s)
	}
	n, err1 := strconv.Atoi(m[1])
	g, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || g < 1 || n > 100000 || g > 64 {
		return ClusterSpec{}, fmt.Errorf("cluster %q: want 1..100000 nodes of 1..64 GPUs", s)
	}
	return ClusterSpec{Nodes: n, GPUsPerNode: g, GPUType: strings.ToLower(m[3])}.withDefaults(), nil
}

func (c ClusterSpec) withDefaults() ClusterSpec {
	if c.CPUsPerNode <= 0 {
		c.CPUsPerNode = 12 * c.GPUsPerNode
	}
	if c.MemoryMBPerNode <= 0 {
		c.MemoryMBPerNode = 48 * 1024 * int64(c.GPUsPerNode)
	}
	if c.Partition == "" {
		c.Partition = "gpu"
	}
	return c
}

// TotalGPUs is Nodes × GPUsPerNode.
func (c ClusterSpec) TotalGPUs() int { return c.Nodes * c.GPUsPerNode }

// String formats the spec as ParseCluster accepts it.
func (c ClusterSpec) String() string {
	if c.GPUType == "" {
		return fmt.Sprintf("%dx%d", c.Nodes, c.GPUsPerNode)
	}
	return fmt.Sprintf("%dx%d:%s", c.Nodes, c.GPUsPerNode, c.GPUType)
}

// simNode is the allocation state of one node.
type simNode struct {
	name  string
	owner []int // job index + 1 per GPU index; 0 = free
	free  int
}

// slot is the part of an allocation on one node.
type slot struct {
	node int
	idx  []int
}

// cluster is the mutable allocation state.
type cluster struct {
	spec   ClusterSpec
	nodes  []simNode
	byName map[string]int
	free   int
	bbUsed int64
}

func newCluster(spec ClusterSpec) *cluster {
	spec = spec.withDefaults()
	c := &cluster{spec: spec, byName: make(map[string]int, spec.Nodes), free: spec.TotalGPUs()}
	width := len(strconv.Itoa(spec.Nodes))
	for i := range spec.Nodes {
		name := fmt.Sprintf("node%0*d", max(3, width), i+1)
		c.nodes = append(c.nodes, simNode{name: name, owner: make([]int, spec.GPUsPerNode), free: spec.GPUsPerNode})
		c.byName[name] = i
	}
	return c
}

// take marks n free GPUs of node ni as owned by job (index+1) and returns them.
func (c *cluster) take(ni, n, owner int) slot {
	s := slot{node: ni}
	nd := &c.nodes[ni]
	for g := range nd.owner {
		if len(s.idx) == n {
			break
		}
		if nd.owner[g] == 0 {
			nd.owner[g] = owner
			s.idx = append(s.idx, g)
		}
	}
	nd.free -= n
	c.free -= n
	return s
}

func (c *cluster) release(slots []slot) {
	for _, s := range slots {
		nd := &c.nodes[s.node]
		for _, g := range s.idx {
			nd.owner[g] = 0
		}
		nd.free += len(s.idx)
		c.free += len(s.idx)
	}
}

// place allocates a shape for job owner: perNode GPUs on each of count
// nodes, preferring the nodes in prefer when they all fit, else best fit
// (fewest free GPUs first, then name). perNode == 0 means "total GPUs
// anywhere, on as few nodes as possible". It returns false, changing
// nothing, when the shape does not fit.
func (c *cluster) place(owner, perNode, count, total int, prefer []string) ([]slot, bool) {
	if perNode <= 0 {
		if out, ok := c.placePreferred(owner, total, prefer); ok {
			return out, true
		}
		return c.placeTotal(owner, total)
	}
	if count < 1 || perNode > c.spec.GPUsPerNode || perNode*count > c.free {
		return nil, false
	}
	chosen := c.preferred(perNode, count, prefer)
	if chosen == nil {
		for i := range c.nodes {
			if c.nodes[i].free >= perNode {
				chosen = append(chosen, i)
			}
		}
		if len(chosen) < count {
			return nil, false
		}
		sort.SliceStable(chosen, func(a, b int) bool { return c.nodes[chosen[a]].free < c.nodes[chosen[b]].free })
		chosen = chosen[:count]
	}
	slices.Sort(chosen)
	out := make([]slot, 0, count)
	for _, ni := range chosen {
		out = append(out, c.take(ni, perNode, owner))
	}
	return out, true
}

// placeAvoiding is place without preferred nodes, never using a node
// whose avoid entry is set (nil: none avoided).
func (c *cluster) placeAvoiding(owner, perNode, count, total int, avoid []bool) ([]slot, bool) {
	if avoid == nil {
		return c.place(owner, perNode, count, total, nil)
	}
	hidden := 0
	saved := make([]int, len(c.nodes))
	for i := range c.nodes {
		saved[i] = c.nodes[i].free
		if avoid[i] {
			hidden += c.nodes[i].free
			c.nodes[i].free = 0
		}
	}
	c.free -= hidden
	slots, ok := c.place(owner, perNode, count, total, nil)
	for i := range c.nodes {
		if avoid[i] {
			c.nodes[i].free = saved[i]
		}
	}
	c.free += hidden
	return slots, ok
}

// preferred returns the node indices named in prefer when they are count
// distinct known nodes each with perNode free GPUs, else nil.
func (c *cluster) preferred(perNode, count int, prefer []string) []int {
	if len(prefer) != count {
		return nil
	}
	var out []int
	for _, name := range prefer {
		ni, ok := c.byName[name]
		if !ok || c.nodes[ni].free < perNode || slices.Contains(out, ni) {
			return nil
		}
		out = append(out, ni)
	}
	return out
}

// placePreferred takes total GPUs from the named nodes in order, or
// nothing when they do not have enough free GPUs together.
func (c *cluster) placePreferred(owner, total int, prefer []string) ([]slot, bool) {
	take := map[int]int{}
	need := total
	for _, name := range prefer {
		ni, ok := c.byName[name]
		if !ok || need == 0 {
			continue
		}
		k := min(need, c.nodes[ni].free-take[ni])
		take[ni] += k
		need -= k
	}
	if need > 0 || total < 1 {
		return nil, false
	}
	var out []slot
	for ni := range c.nodes {
		if k := take[ni]; k > 0 {
			out = append(out, c.take(ni, k, owner))
		}
	}
	return out, true
}

// placeTotal packs total GPUs: one best-fit node when possible, else the
// nodes with the most free GPUs first.
func (c *cluster) placeTotal(owner, total int) ([]slot, bool) {
	if total < 1 || total > c.free {
		return nil, false
	}
	best := -1
	for i := range c.nodes {
		if f := c.nodes[i].free; f >= total && (best < 0 || f < c.nodes[best].free) {
			best = i
		}
	}
	if best >= 0 {
		return []slot{c.take(best, total, owner)}, true
	}
	order := make([]int, len(c.nodes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return c.nodes[order[a]].free > c.nodes[order[b]].free })
	var out []slot
	for _, ni := range order {
		if total == 0 {
			break
		}
		if n := min(total, c.nodes[ni].free); n > 0 {
			out = append(out, c.take(ni, n, owner))
			total -= n
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].node < out[b].node })
	return out, true
}

// snapshotNodes renders the nodes as Slurm would show them.
func (c *cluster) snapshotNodes() []planner.Node {
	cpuPerGPU := c.spec.CPUsPerNode / c.spec.GPUsPerNode
	memPerGPU := c.spec.MemoryMBPerNode / int64(c.spec.GPUsPerNode)
	out := make([]planner.Node, len(c.nodes))
	for i, nd := range c.nodes {
		used := c.spec.GPUsPerNode - nd.free
		state := "MIXED"
		switch {
		case used == 0:
			state = "IDLE"
		case nd.free == 0:
			state = "ALLOCATED"
		}
		out[i] = planner.Node{
			Name: nd.name, State: []string{state}, Partitions: []string{c.spec.Partition},
			CPUs: c.spec.CPUsPerNode, AllocCPUs: used * cpuPerGPU,
			MemoryMB: c.spec.MemoryMBPerNode, AllocMemMB: int64(used) * memPerGPU,
			GPUs: c.spec.GPUsPerNode, AllocGPUs: used, GPUType: c.spec.GPUType,
		}
	}
	return out
}
