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
	// (an AWS g4dn.12xlarge has 48 vCPUs and 192 GiB for 4 T4). Jobs ask
	// for the CPUs and memory of their trace (columns cpus, memory_mib),
	// else the same share per GPU, which never binds.
	CPUsPerNode     int
	MemoryMBPerNode int64
	// Partition is the partition name; default "gpu".
	Partition string
	// BurstBufferBytes is the capacity of one shared burst-buffer pool
	// ("bb"); 0 = no pool.
	BurstBufferBytes int64
	// BurstBufferBps is the pool's stage-in and stage-out bandwidth per
	// job (bytes/s); 0 = data moves instantly (Slurm mode, slurmbb.go).
	BurstBufferBps float64
	// BurstBufferPoolBps is the pool's total bandwidth ("bbpoolbw"),
	// shared equally by the transfers under way (bbflow.go); 0 = each
	// transfer runs at BurstBufferBps whatever the others do.
	BurstBufferPoolBps float64
	// Parts split the nodes into partitions (islands, islands.go), each
	// with its GPU type; every job lists them all. Empty: one partition,
	// Partition, of every node.
	Parts []PartSpec
}

var clusterRe = regexp.MustCompile(`^(\d+)x(\d+)(?::([A-Za-z0-9_.-]+))?((?:,[^,]*)*)$`)

// ClusterSyntax is the grammar ParseCluster accepts, for help texts.
const ClusterSyntax = "NODESxGPUS[:TYPE][,cpus=N][,mem=SIZE][,bb=SIZE][,bbbw=SIZE/s][,bbpoolbw=SIZE/s][,parts=NAME:NODES[:TYPE]/NAME:NODES[:TYPE]...]"

// ParseCluster parses NODESxGPUS[:TYPE] followed by optional comma-separated
// settings, e.g. "16x4:t4" or "16x4:t4,cpus=48,mem=192G,bb=100T,bbbw=2G/s":
// cpus= CPUs per node, mem= memory per node (Slurm's units: a bare number
// is MB, K/M/G/T are binary), bb= the capacity of a shared burst-buffer
// pool and bbbw= its stage-in/stage-out bandwidth per job (bytes per
// second, binary units, "/s" optional), bbpoolbw= the pool's total
// bandwidth that concurrent transfers share (default: none), parts= partitions that split the
// nodes in order, each NAME:NODES[:TYPE] (the GPU type's speed against the
// cluster's TYPE comes from the planner's gpu-speed table; the trace's
// run times are for TYPE), e.g. "16x4:t4,parts=slow:8:t4/fast:8:v100".
func ParseCluster(s string) (ClusterSpec, error) {
	m := clusterRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ClusterSpec{}, fmt.Errorf("cluster %q: want %s, e.g. 16x4:t4", s, ClusterSyntax)
	}
	n, err1 := strconv.Atoi(m[1])
	g, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || g < 1 || n > 100000 || g > 64 {
		return ClusterSpec{}, fmt.Errorf("cluster %q: want 1..100000 nodes of 1..64 GPUs", s)
	}
	c := ClusterSpec{Nodes: n, GPUsPerNode: g, GPUType: strings.ToLower(m[3])}
	if err := c.setOptions(m[4]); err != nil {
		return ClusterSpec{}, fmt.Errorf("cluster %q: %w", s, err)
	}
	return c.withDefaults(), nil
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

// String formats the spec as ParseCluster accepts it (settings only when
// they differ from the defaults).
func (c ClusterSpec) String() string {
	s := fmt.Sprintf("%dx%d", c.Nodes, c.GPUsPerNode)
	if c.GPUType != "" {
		s += ":" + c.GPUType
	}
	return s + c.optionString()
}

// simNode is the allocation state of one node.
type simNode struct {
	name  string
	owner []int // job index + 1 per GPU index; 0 = free
	free  int
	// freeCPU and freeMem (MB) are the node's CPUs and memory not allocated.
	freeCPU int
	freeMem int64
	// part is the node's partition (index into spec.partitions()) and
	// gpuType its GPUs' type.
	part    int
	gpuType string
}

// slot is the part of an allocation on one node: GPU indices, CPUs and
// memory (MB).
type slot struct {
	node int
	idx  []int
	cpus int
	mem  int64
}

// cluster is the mutable allocation state.
type cluster struct {
	spec   ClusterSpec
	nodes  []simNode
	byName map[string]int
	free   int
	bbUsed int64
	// need is the CPUs and memory (MB) job owner takes on a node where it
	// gets g GPUs (nil: none, only GPUs are allocated).
	need func(owner, g int) (cpus int, mem int64)
	// bb is the burst-buffer state of Slurm mode (nil: no pool or ideal
	// mode; slurmbb.go).
	bb *bbState
	// partIdx maps a partition name to its index (islands.go).
	partIdx map[string]int
	// nodeParts (each node's partition list) and parts (the partitions)
	// are rendered once for every snapshot: the layout never changes.
	nodeParts [][]string
	parts     []planner.Partition
}

func newCluster(spec ClusterSpec) *cluster {
	spec = spec.withDefaults()
	c := &cluster{spec: spec, byName: make(map[string]int, spec.Nodes), free: spec.TotalGPUs()}
	width := len(strconv.Itoa(spec.Nodes))
	for i := range spec.Nodes {
		name := fmt.Sprintf("node%0*d", max(3, width), i+1)
		c.nodes = append(c.nodes, simNode{name: name, owner: make([]int, spec.GPUsPerNode), free: spec.GPUsPerNode,
			freeCPU: spec.CPUsPerNode, freeMem: spec.MemoryMBPerNode})
		c.byName[name] = i
	}
	c.assignParts()
	return c
}

// needOf is what owner takes besides g GPUs on one node.
func (c *cluster) needOf(owner, g int) (int, int64) {
	if c.need == nil || g <= 0 {
		return 0, 0
	}
	return c.need(owner, g)
}

// fits reports whether node ni has g free GPUs and owner's CPUs and memory
// for them.
func (c *cluster) fits(ni, g, owner int) bool {
	nd := &c.nodes[ni]
	if nd.free < g {
		return false
	}
	cpu, mem := c.needOf(owner, g)
	return nd.freeCPU >= cpu && nd.freeMem >= mem
}

// most is the most GPUs (at most g) owner can take on node ni with their
// CPUs and memory.
func (c *cluster) most(ni, g, owner int) int {
	for k := min(g, c.nodes[ni].free); k > 0; k-- {
		if c.fits(ni, k, owner) {
			return k
		}
	}
	return 0
}

// take marks n free GPUs of node ni as owned by job (index+1), with the
// job's CPUs and memory for them, and returns them.
func (c *cluster) take(ni, n, owner int) slot {
	s := slot{node: ni}
	s.cpus, s.mem = c.needOf(owner, n)
	nd := &c.nodes[ni]
	nd.freeCPU -= s.cpus
	nd.freeMem -= s.mem
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
		nd.freeCPU += s.cpus
		nd.freeMem += s.mem
		c.free += len(s.idx)
	}
}

// place allocates a shape for job owner: perNode GPUs on each of count
// nodes, preferring the nodes in prefer when they all fit, else best fit
// (fewest free GPUs first, then name). perNode == 0 means "total GPUs
// anywhere, on as few nodes as possible". A node counts only with the
// owner's CPUs and memory for its GPUs free too. It returns false,
// changing nothing, when the shape does not fit.
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
	chosen := c.preferred(owner, perNode, count, prefer)
	if chosen == nil {
		for i := range c.nodes {
			if c.fits(i, perNode, owner) {
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

// placeAvoiding is place, never using a node whose avoid entry is set
// (nil: none avoided).
func (c *cluster) placeAvoiding(owner, perNode, count, total int, prefer []string, avoid []bool) ([]slot, bool) {
	if avoid == nil {
		return c.place(owner, perNode, count, total, prefer)
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
	slots, ok := c.place(owner, perNode, count, total, prefer)
	for i := range c.nodes {
		if avoid[i] {
			c.nodes[i].free = saved[i]
		}
	}
	c.free += hidden
	return slots, ok
}

// preferred returns the node indices named in prefer when they are count
// distinct known nodes each with perNode free GPUs (and owner's CPUs and
// memory for them), else nil.
func (c *cluster) preferred(owner, perNode, count int, prefer []string) []int {
	if len(prefer) != count {
		return nil
	}
	var out []int
	for _, name := range prefer {
		ni, ok := c.byName[name]
		if !ok || !c.fits(ni, perNode, owner) || slices.Contains(out, ni) {
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
		k := min(need, c.most(ni, take[ni]+need, owner)-take[ni])
		if k <= 0 {
			continue
		}
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
// nodes with the most free GPUs first (each taking what its CPUs and
// memory allow).
func (c *cluster) placeTotal(owner, total int) ([]slot, bool) {
	if total < 1 || total > c.free {
		return nil, false
	}
	best := -1
	for i := range c.nodes {
		if f := c.nodes[i].free; c.fits(i, total, owner) && (best < 0 || f < c.nodes[best].free) {
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
	take := make([]int, len(c.nodes))
	need := total
	for _, ni := range order {
		if need == 0 {
			break
		}
		take[ni] = c.most(ni, need, owner)
		need -= take[ni]
	}
	if need > 0 {
		return nil, false
	}
	var out []slot
	for _, ni := range order {
		if take[ni] > 0 {
			out = append(out, c.take(ni, take[ni], owner))
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].node < out[b].node })
	return out, true
}

// Node states as snapshots show them; every snapshot shares these slices
// (policies never modify a snapshot).
var (
	stateIdle      = []string{"IDLE"}
	stateMixed     = []string{"MIXED"}
	stateAllocated = []string{"ALLOCATED"}
)

// snapshotNodes renders the nodes as Slurm would show them into buf (its
// contents are replaced; the snapshot before shares nothing else with it).
func (c *cluster) snapshotNodes(buf []planner.Node) []planner.Node {
	if c.nodeParts == nil { // the partitions of each node never change
		c.nodeParts = make([][]string, len(c.nodes))
		for i, nd := range c.nodes {
			c.nodeParts[i] = []string{c.spec.partitions()[nd.part].Name}
		}
	}
	out := slices.Grow(buf[:0], len(c.nodes))[:len(c.nodes)]
	for i := range c.nodes {
		nd := &c.nodes[i]
		used := c.spec.GPUsPerNode - nd.free
		state := stateMixed
		switch {
		case used == 0:
			state = stateIdle
		case nd.free == 0:
			state = stateAllocated
		}
		out[i] = planner.Node{
			Name: nd.name, State: state, Partitions: c.nodeParts[i],
			CPUs: c.spec.CPUsPerNode, AllocCPUs: c.spec.CPUsPerNode - nd.freeCPU,
			MemoryMB: c.spec.MemoryMBPerNode, AllocMemMB: c.spec.MemoryMBPerNode - nd.freeMem,
			GPUs: c.spec.GPUsPerNode, AllocGPUs: used, GPUType: nd.gpuType,
		}
	}
	return out
}
