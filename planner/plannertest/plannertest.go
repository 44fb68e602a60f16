// Package plannertest builds planner snapshots for tests and benchmarks.
package plannertest

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Builder assembles a Snapshot fluently; Build sorts it as the contract
// requires.
type Builder struct {
	s     planner.Snapshot
	nodes map[string]int
}

// Cluster starts a snapshot with an ID and a cluster time.
func Cluster(id string, now time.Time) *Builder {
	return &Builder{s: planner.Snapshot{ID: id, Now: now, Cluster: "test"}, nodes: map[string]int{}}
}

// Partition adds a partition (nodes are attached by Nodes).
func (b *Builder) Partition(name string, def bool) *Builder {
	b.s.Partitions = append(b.s.Partitions, planner.Partition{Name: name, Default: def})
	return b
}

// Nodes adds n idle nodes named prefix001.. in partition part.
func (b *Builder) Nodes(prefix string, n, gpus, cpus int, memMB int64, part, gpuType string) *Builder {
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s%04d", prefix, i)
		b.nodes[name] = len(b.s.Nodes)
		b.s.Nodes = append(b.s.Nodes, planner.Node{Name: name, State: []string{"IDLE"}, Partitions: []string{part},
			CPUs: cpus, MemoryMB: memMB, GPUs: gpus, GPUType: gpuType})
		for k := range b.s.Partitions {
			if p := &b.s.Partitions[k]; p.Name == part {
				p.Nodes = append(p.Nodes, name)
				p.TotalGPUs += gpus
				p.TotalCPUs += cpus
			}
		}
	}
	return b
}

// AddToPartition puts existing nodes into partition part as well
// (overlapping partitions).
func (b *Builder) AddToPartition(part string, nodes ...string) *Builder {
	for k := range b.s.Partitions {
		p := &b.s.Partitions[k]
		if p.Name != part {
			continue
		}
		for _, name := range nodes {
			n := &b.s.Nodes[b.nodes[name]]
			n.Partitions = append(n.Partitions, part)
			p.Nodes = append(p.Nodes, name)
			p.TotalGPUs += n.GPUs
			p.TotalCPUs += n.CPUs
		}
	}
	return b
}

// NodeState sets a node's Slurm state flags (e.g. "DRAIN").
func (b *Builder) NodeState(name string, state ...string) *Builder {
	b.s.Nodes[b.nodes[name]].State = state
	return b
}

// JobOpt changes a job being added.
type JobOpt func(*planner.Job)

// Submitted sets the submit time.
func Submitted(t time.Time) JobOpt { return func(j *planner.Job) { j.SubmitTime = t } }

// TimeLimit sets the time limit.
func TimeLimit(d time.Duration) JobOpt { return func(j *planner.Job) { j.TimeLimit = d } }

// InPartition sets the partition.
func InPartition(p string) JobOpt { return func(j *planner.Job) { j.Partition = p } }

// InPartitions lets the job run in any of the partitions (sbatch -p a,b):
// Slurm's comma-separated list and the planner's Partitions.
func InPartitions(ps ...string) JobOpt {
	return func(j *planner.Job) { j.Partition, j.Partitions = strings.Join(ps, ","), ps }
}

// Narrowed is a job Strata moved to partition cur out of the user's list.
func Narrowed(cur string, list ...string) JobOpt {
	return func(j *planner.Job) { j.Partition, j.Partitions = cur, list }
}

// BurstBuffer sets the job's burst-buffer bytes and pool.
func BurstBuffer(bytes int64, pool string) JobOpt {
	return func(j *planner.Job) { j.BurstBufferBytes, j.BurstBufferPool = bytes, pool }
}

// BurstBufferState sets Slurm's burst_buffer_state of a job ("pending",
// "staging-in", "staged-in", ...).
func BurstBufferState(state string) JobOpt {
	return func(j *planner.Job) { j.BurstBufferState = state }
}

// Preemptible opts a job in to preemption: its comment (which should say
// preempt=yes) and Slurm's requeue flag.
func Preemptible(comment string) JobOpt {
	return func(j *planner.Job) { j.Comment, j.Requeue = comment, true }
}

// Attained sets the attained GPU service (Tiresias).
func Attained(gpuSeconds float64) JobOpt {
	return func(j *planner.Job) { j.AttainedGPUSeconds = gpuSeconds }
}

// Pending adds a pending job requesting gpus GPUs on one node per job
// (tres_per_job), with a comment. Defaults: submitted at Now, 2 CPUs and
// 8 GiB per GPU, time limit 24 h, priority 1 (Slurm's floor for jobs that
// are not held).
func (b *Builder) Pending(id int64, gpus int, comment string, opts ...JobOpt) *Builder {
	j := planner.Job{ID: id, Name: fmt.Sprintf("job%d", id), User: "u", State: planner.JobPending, Priority: 1,
		SubmitTime: b.s.Now, TimeLimit: 24 * time.Hour, GPUsPerJob: gpus, Nodes: 1,
		CPUs: 2 * max(1, gpus), MemoryMB: 8192 * int64(max(1, gpus)), Comment: comment}
	for _, o := range opts {
		o(&j)
	}
	b.s.Jobs = append(b.s.Jobs, j)
	return b
}

// Running adds a running job holding gpus GPUs on node (allocating them).
func (b *Builder) Running(id int64, gpus int, node string, started time.Time, opts ...JobOpt) *Builder {
	j := planner.Job{ID: id, Name: fmt.Sprintf("job%d", id), User: "u", State: planner.JobRunning,
		SubmitTime: started, StartTime: started, TimeLimit: 24 * time.Hour, GPUsPerJob: gpus, Nodes: 1,
		CPUs: 2 * gpus, MemoryMB: 8192 * int64(gpus), NodeList: []string{node}}
	for _, o := range opts {
		o(&j)
	}
	n := &b.s.Nodes[b.nodes[node]]
	idx := make([]int, gpus)
	for k := range idx {
		idx[k] = n.AllocGPUs + k
	}
	j.GPUAlloc = []planner.GPUAllocation{{Node: node, Indices: idx}}
	n.AllocGPUs += gpus
	n.AllocCPUs += j.CPUs
	n.AllocMemMB += j.MemoryMB
	n.State = []string{"MIXED"}
	if j.Partition == "" && len(n.Partitions) > 0 {
		j.Partition = n.Partitions[0]
	}
	b.s.Jobs = append(b.s.Jobs, j)
	return b
}

// Pool adds a burst-buffer pool.
func (b *Builder) Pool(name string, capacity, used int64) *Builder {
	b.s.BurstBufferPools = append(b.s.BurstBufferPools, planner.BurstBufferPool{Name: name, CapacityBytes: capacity, UsedBytes: used})
	return b
}

// PoolBandwidth sets the stage-in bandwidth (bytes/s) of the pool added
// last.
func (b *Builder) PoolBandwidth(bps float64) *Builder {
	b.s.BurstBufferPools[len(b.s.BurstBufferPools)-1].BandwidthBps = bps
	return b
}

// Build returns the snapshot with nodes, partitions and jobs sorted; jobs
// without a partition get the default one.
func (b *Builder) Build() *planner.Snapshot {
	s := b.s
	def := ""
	for _, p := range s.Partitions {
		if p.Default || def == "" {
			def = p.Name
		}
	}
	for k := range s.Jobs {
		if s.Jobs[k].Partition == "" {
			s.Jobs[k].Partition = def
		}
	}
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	sort.Slice(s.Partitions, func(i, j int) bool { return s.Partitions[i].Name < s.Partitions[j].Name })
	sort.Slice(s.Jobs, func(i, j int) bool { return s.Jobs[i].ID < s.Jobs[j].ID })
	return &s
}

// hintMix is the comment mix of Synthetic workloads.
var hintMix = [...]string{
	"strata: model=resnet50 batch=64 epochs=%d samples=1281167 gpus=1-8 arch=allreduce",
	"strata: model=vgg16 batch=64 epochs=%d samples=1281167 gpus=1-16 arch=ps ps=auto",
	"strata: model=cifar10 batch=2048 iters=%d000 gpus=1-16",
	"strata: model=imagenet batch=3200 iters=%d00 gpus=4-32",
	"strata: model=gnmt batch=64 epochs=%d samples=4500000 gpus=2-8 arch=ps ps=1-4",
	"notes without hints %d",
	"strata: model=bert batch=384 iters=%d000 gpus=2",
	"strata: params=350M flops=2T batch=32 iters=%d000 gpus=1-8",
}

// Synthetic builds a cluster of nodes × gpusPerNode GPUs (partition "gpu",
// 64 CPUs and 512 GiB per node) with about half the nodes busy and pending
// jobs drawn from a fixed hint mix; the same seed gives the same snapshot.
func Synthetic(nodes, gpusPerNode, pending int, seed uint64) *planner.Snapshot {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(seed, 7))
	b := Cluster(fmt.Sprintf("synthetic-%d-%d-%d", nodes, pending, seed), now).Partition("gpu", true).
		Nodes("gpu", nodes, gpusPerNode, 64, 512*1024, "gpu", "a100")
	id := int64(1)
	for i := 1; i <= nodes/2; i++ {
		g := 1 << rng.IntN(4)
		b.Running(id, min(g, gpusPerNode), fmt.Sprintf("gpu%04d", i), now.Add(-time.Duration(rng.IntN(7200))*time.Second))
		id++
	}
	for range pending {
		h := hintMix[rng.IntN(len(hintMix))]
		gpus := 1 << rng.IntN(4)
		b.Pending(id, gpus, fmt.Sprintf(h, 1+rng.IntN(9)),
			Submitted(now.Add(-time.Duration(rng.IntN(36000))*time.Second)),
			TimeLimit(time.Duration(1+rng.IntN(72))*time.Hour))
		id++
	}
	return b.Build()
}
