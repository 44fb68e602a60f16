package sim

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/planner"
)

// PartSpec is one partition of a cluster split into islands (the cluster
// spec's parts= setting): Nodes consecutive nodes of GPUType (the
// cluster's type when empty).
type PartSpec struct {
	Name    string
	Nodes   int
	GPUType string
}

var partRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):(\d+)(?::([A-Za-z0-9_.-]+))?$`)

// parseParts reads "NAME:NODES[:TYPE]/NAME:NODES[:TYPE]...".
func parseParts(v string, nodes int) ([]PartSpec, error) {
	var out []PartSpec
	sum := 0
	for _, p := range strings.Split(v, "/") {
		m := partRe.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			return nil, fmt.Errorf("partition %q: want NAME:NODES[:TYPE], e.g. fast:8:v100", p)
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("partition %q: want 1 node or more", p)
		}
		if slices.ContainsFunc(out, func(q PartSpec) bool { return q.Name == m[1] }) {
			return nil, fmt.Errorf("partition %s given twice", m[1])
		}
		out = append(out, PartSpec{Name: m[1], Nodes: n, GPUType: strings.ToLower(m[3])})
		sum += n
	}
	if len(out) < 2 {
		return nil, errors.New("want two partitions or more, separated by '/'")
	}
	if sum != nodes {
		return nil, fmt.Errorf("the partitions have %d nodes, the cluster %d: make them add up", sum, nodes)
	}
	return out, nil
}

func partsString(ps []PartSpec) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%s:%d", p.Name, p.Nodes)
		if p.GPUType != "" {
			s[i] += ":" + p.GPUType
		}
	}
	return strings.Join(s, "/")
}

// partitions are the cluster's partitions: its Parts, else one partition
// of every node.
func (c ClusterSpec) partitions() []PartSpec {
	if len(c.Parts) > 0 {
		return c.Parts
	}
	return []PartSpec{{Name: c.Partition, Nodes: c.Nodes, GPUType: c.GPUType}}
}

// partitionNames is every partition's name, in spec order: what each
// simulated job lists (sbatch -p a,b: the users let Slurm, or Strata,
// choose).
func (c ClusterSpec) partitionNames() []string {
	ps := c.partitions()
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// jobGPUType is the GPU type simulated jobs ask for: the cluster's, or
// none when its partitions differ in type (a job that lists them all).
func (c ClusterSpec) jobGPUType() string {
	for _, p := range c.Parts {
		if p.GPUType != "" && p.GPUType != c.GPUType {
			return ""
		}
	}
	return c.GPUType
}

// assignParts gives each node its partition and GPU type.
func (c *cluster) assignParts() {
	k := 0
	for pi, p := range c.spec.partitions() {
		typ := p.GPUType
		if typ == "" {
			typ = c.spec.GPUType
		}
		for range p.Nodes {
			c.nodes[k].part, c.nodes[k].gpuType = pi, typ
			k++
		}
	}
	c.partIdx = map[string]int{}
	for pi, p := range c.spec.partitions() {
		c.partIdx[p.Name] = pi
	}
}

// onePart is partsOf's answer on a cluster of one partition.
var onePart = []int{0}

// partsOf is the indices of the partitions a job's Slurm partition field
// names (a comma-separated list), in its order; unknown names are
// skipped.
func (c *cluster) partsOf(field string) []int {
	if len(c.spec.Parts) == 0 {
		return onePart
	}
	var out []int
	for _, name := range strings.Split(field, ",") {
		if pi, ok := c.partIdx[name]; ok && !slices.Contains(out, pi) {
			out = append(out, pi)
		}
	}
	return out
}

// outside marks the nodes not in partition pi, plus those avoid marks.
func (c *cluster) outside(pi int, avoid []bool) []bool {
	out := make([]bool, len(c.nodes))
	for n := range c.nodes {
		out[n] = c.nodes[n].part != pi || avoid != nil && avoid[n]
	}
	return out
}

// speedOf is the speed of a node's GPUs against the cluster's type (the
// type the trace's durations are for), from the planner's gpu-speed
// table; 1 when either is unknown.
func (e *engine) speedOf(node int) float64 {
	o := e.cfg.Planner
	if o == nil || len(e.cfg.Cluster.Parts) == 0 {
		return 1
	}
	ref, ok1 := o.GPUSpeed[e.cl.spec.GPUType]
	got, ok2 := o.GPUSpeed[e.cl.nodes[node].gpuType]
	if !ok1 || !ok2 || ref <= 0 || got <= 0 {
		return 1
	}
	return got / ref
}

// placeJob places job i in partition part (-1, or a cluster of one
// partition: anywhere).
func (e *engine) placeJob(i, part, per, count, total int, prefer []string) ([]slot, bool) {
	if len(e.cl.spec.Parts) == 0 || part < 0 {
		return e.cl.place(i+1, per, count, total, prefer)
	}
	return e.cl.placeAvoiding(i+1, per, count, total, prefer, e.cl.outside(part, nil))
}

// decidedPart is the partition a plan starts job j in: the decision's, else
// the first the job lists.
func (e *engine) decidedPart(j *job, d *planner.Decision) int {
	field := j.pj.Partition
	if d.Partition != "" {
		field = d.Partition
	}
	if ps := e.cl.partsOf(field); len(ps) > 0 {
		return ps[0]
	}
	return -1
}

// partOfSlots is the partition of a running job's nodes (-1: none).
func (e *engine) partOfSlots(slots []slot) int {
	if len(slots) == 0 {
		return -1
	}
	return e.cl.nodes[slots[0].node].part
}

// bfFit is backfill's earliest fit of job i: on a cluster of partitions,
// the earliest over the partitions the job lists (the first on a tie).
func (e *engine) bfFit(p *bfPlan, i, per, nodes, total int, limit, window float64) (float64, []int, bool) {
	if len(e.cl.spec.Parts) == 0 {
		return p.fit(i+1, per, nodes, total, limit, window)
	}
	var at float64
	var got []int
	ok := false
	for _, pi := range e.cl.partsOf(e.jobs[i].pj.Partition) {
		p.skip = e.cl.outside(pi, nil)
		if a, g, fits := p.fit(i+1, per, nodes, total, limit, window); fits && (!ok || a < at) {
			at, got, ok = a, g, true
		}
	}
	p.skip = nil
	return at, got, ok
}

// snapshotPartitions renders the partitions as Slurm would show them,
// sorted by name (the first in spec order is the default).
func (c *cluster) snapshotPartitions() []planner.Partition {
	if c.parts == nil { // the layout never changes: render it once
		c.parts = c.renderPartitions()
	}
	return c.parts
}

func (c *cluster) renderPartitions() []planner.Partition {
	ps := c.spec.partitions()
	out := make([]planner.Partition, len(ps))
	for pi, p := range ps {
		out[pi] = planner.Partition{Name: p.Name, Default: pi == 0}
	}
	for _, nd := range c.nodes {
		p := &out[nd.part]
		p.Nodes = append(p.Nodes, nd.name)
		p.TotalCPUs += c.spec.CPUsPerNode
		p.TotalGPUs += c.spec.GPUsPerNode
	}
	slices.SortFunc(out, func(a, b planner.Partition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// energyKWh is the run's GPU energy: busy GPU-seconds at busy power and the
// rest of the window at idle power, per partition on a cluster of
// partitions (each at its GPU type's power), else for the cluster's type.
func (e *engine) energyKWh(gpus int, window float64) float64 {
	if len(e.cl.spec.Parts) == 0 || len(e.busyPart) == 0 {
		return energyKWh(e.cfg.Power.For(e.cl.spec.GPUType), gpus, window, e.busy)
	}
	kwh := 0.0
	for pi, p := range e.cl.spec.Parts {
		kwh += energyKWh(e.cfg.Power.For(e.partType(pi)), p.Nodes*e.cl.spec.GPUsPerNode, window, e.busyPart[pi])
	}
	return kwh
}

// partType is partition pi's GPU type.
func (e *engine) partType(pi int) string {
	if t := e.cl.spec.Parts[pi].GPUType; t != "" {
		return t
	}
	return e.cl.spec.GPUType
}

// partitionPower is what the planner's energy term knows of the power of
// each partition's GPU type on a cluster of partitions (as the daemon's
// calibration measures it): the power model's busy watts. nil otherwise.
func (e *engine) partitionPower() []planner.GPUPower {
	if len(e.cl.spec.Parts) == 0 {
		return nil
	}
	var out []planner.GPUPower
	for pi := range e.cl.spec.Parts {
		t := e.partType(pi)
		if !slices.ContainsFunc(out, func(p planner.GPUPower) bool { return p.GPUType == t }) {
			out = append(out, planner.GPUPower{GPUType: t, Watts: e.cfg.Power.For(t).BusyW, Jobs: 1})
		}
	}
	return out
}
