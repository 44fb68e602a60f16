package dcgmtest

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/strata-hpc/strata/dcgm"
)

// Node describes one synthetic node. Minors[i] is the device minor number of
// the GPU with device index i (nil: minor = index).
type Node struct {
	Name   string
	GPUs   int
	Minors []int
}

// Reset is a driver reload on one GPU: its energy counter restarts from 0.
type Reset struct {
	Host  string
	Index int
	At    time.Duration // offset from Scenario.Start
}

// Scenario describes a synthetic recording.
type Scenario struct {
	Start    time.Time
	Interval time.Duration // sampling interval
	Duration time.Duration // the last sweep is at Start+Duration
	Nodes    []Node
	Jobs     []dcgm.ScheduledJob // Allocs indices are minor numbers (Slurm IDX)
	Resets   []Reset
}

// Recording is a generated recording with its schedule; every job's EnergyJ
// holds the true energy (the 1 s integral of the modelled power over the
// job's GPUs and interval), computed independently of the counters.
type Recording struct {
	Samples  []dcgm.Sample
	Schedule dcgm.Schedule
}

// Demo is the scenario behind dcgm/testdata/recording.jsonl: 2 nodes × 4
// GPUs, 10 s samples over 6 minutes. gpu-a shares its GPUs between jobs 101
// and 102 at the same time; gpu-b numbers its minors in reverse of its device
// indices; job 104 spans both nodes; gpu-b minor 2 stays idle; the GPU with
// minor 1 on gpu-b has its driver reloaded in the middle of job 103.
func Demo() Scenario {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return Scenario{
		Start: t0, Interval: 10 * time.Second, Duration: 6 * time.Minute,
		Nodes: []Node{{Name: "gpu-a", GPUs: 4}, {Name: "gpu-b", GPUs: 4, Minors: []int{3, 2, 1, 0}}},
		Jobs: []dcgm.ScheduledJob{
			{Job: 101, Name: "resnet50", User: "alice", Account: "vision", Partition: "gpu",
				Submit: at(-120), Start: at(0), End: at(240), Allocs: []dcgm.SlurmAlloc{{Node: "gpu-a", Indices: []int{0, 1}}}},
			{Job: 102, Name: "bert", User: "bob", Account: "nlp", Partition: "gpu",
				Submit: at(-30), Start: at(60), End: at(300), Allocs: []dcgm.SlurmAlloc{{Node: "gpu-a", Indices: []int{2, 3}}}},
			{Job: 103, Name: "gpt-small", User: "alice", Account: "nlp", Partition: "gpu",
				Submit: at(0), Start: at(30), End: at(330), Allocs: []dcgm.SlurmAlloc{{Node: "gpu-b", Indices: []int{0, 1}}}},
			{Job: 104, Name: "vit", User: "carol", Account: "vision", Partition: "gpu",
				Submit: at(200), Start: at(270), End: at(360), Allocs: []dcgm.SlurmAlloc{
					{Node: "gpu-a", Indices: []int{0, 1}}, {Node: "gpu-b", Indices: []int{3}}}},
		},
		Resets: []Reset{{Host: "gpu-b", Index: 2, At: 155 * time.Second}}, // index 2 = minor 1 on gpu-b
	}
}

// Generate builds the recording of sc deterministically.
func Generate(sc Scenario) (Recording, error) {
	g, err := newGen(sc)
	if err != nil {
		return Recording{}, err
	}
	steps := int(sc.Duration / time.Second)
	every := int(sc.Interval / time.Second)
	if every <= 0 {
		return Recording{}, fmt.Errorf("generate recording: interval %v below 1s", sc.Interval)
	}
	var out []dcgm.Sample
	for s := 0; s <= steps; s++ {
		if s%every == 0 {
			out = g.sweep(s, out)
		}
		if s < steps {
			g.advance(s)
		}
	}
	sched := dcgm.Schedule{Jobs: append([]dcgm.ScheduledJob(nil), sc.Jobs...)}
	for i := range sched.Jobs {
		sched.Jobs[i].EnergyJ = math.Round(g.truth[sched.Jobs[i].Job]*1000) / 1000
	}
	sort.Slice(sched.Jobs, func(i, j int) bool { return sched.Jobs[i].Job < sched.Jobs[j].Job })
	return Recording{Samples: out, Schedule: sched}, nil
}
