package planner_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// psWrite is what a PS decision says Slurm must allocate.
type psWrite struct {
	Workers, PS, GPUsPerNode, NodeCount, Tasks, TasksPerNode, CPUsPerTask int
	MemoryPerNodeMB                                                       int64
}

func psWriteOf(d planner.Decision) psWrite {
	return psWrite{d.Workers, d.PS, d.GPUsPerNode, d.NodeCount, d.Tasks, d.TasksPerNode, d.CPUsPerTask, d.MemoryPerNodeMB}
}

// A PS job's servers become tasks of the job (issue 24.1): W + P tasks,
// every node its workers and an equal share of the servers, each task one
// worker's CPUs, the memory of a node's workers and servers; the server
// count stays in the hint's range and divides over the nodes.
func TestPSServersAreWrittenAsTasks(t *testing.T) {
	const vgg = "strata: model=vgg16 batch=64 iters=20000 "
	// vgg16's parameters: 553 MB of fp32; a server holds 4 × its share + 256 MB.
	srv := func(p int64) int64 { return 4*553436960/p>>20 + 256 }
	cases := []struct {
		name    string
		gpus    int
		comment string
		nodes   int // of 4 GPUs, 32 CPUs and 256 GiB each
		want    psWrite
	}{
		{"one node, ps=4", 1, vgg + "gpus=4 arch=ps ps=4", 2,
			psWrite{4, 4, 4, 1, 8, 8, 2, 4*8192 + 4*srv(4)}},
		{"two nodes, ps=2 splits 1+1", 8, vgg + "gpus=8 arch=ps ps=2", 2,
			psWrite{8, 2, 4, 2, 10, 5, 2, 4*8192 + srv(2)}},
		{"two nodes, ps=3 rounds down into ps=2-3", 8, vgg + "gpus=8 arch=ps ps=2-3", 2,
			psWrite{8, 2, 4, 2, 10, 5, 2, 4*8192 + srv(2)}},
		{"allreduce has no servers", 1, vgg + "gpus=4 arch=allreduce", 2,
			psWrite{4, 0, 4, 1, 0, 0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := pt.Cluster("ps", t0).Partition("gpu", true).Nodes("n", tc.nodes, 4, 32, 256*1024, "gpu", "").
				Pending(1, tc.gpus, tc.comment).Build()
			for _, policy := range []string{"smd", "fifo"} {
				p, err := planner.NewPolicy(policy, planner.Options{})
				if err != nil {
					t.Fatal(err)
				}
				plan, err := p.Plan(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, psWriteOf(plan.Decisions[0])); diff != "" {
					t.Errorf("%s: written (-want +got):\n%s", policy, diff)
				}
			}
		})
	}
}

// A PS job whose servers were written as tasks plans the same again: its
// CPUs per task and its servers' memory are not taken for more per-worker
// resources at the next cycle (which would grow its request every cycle).
func TestPSWrittenTasksAreStable(t *testing.T) {
	b := pt.Cluster("ps", t0).Partition("gpu", true).Nodes("n", 2, 4, 32, 256*1024, "gpu", "")
	s := b.Pending(1, 1, "strata: model=vgg16 batch=64 iters=20000 gpus=4 arch=ps ps=auto").Build()
	p, _ := planner.NewPolicy("smd", planner.Options{})
	first, err := p.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d := first.Decisions[0]
	if d.Tasks == 0 {
		t.Fatalf("no tasks written: %+v", d)
	}
	// The job as Slurm holds it after the write.
	j := &s.Jobs[0]
	j.GPUsPerJob, j.GPUsPerNode, j.Nodes = 0, d.GPUsPerNode, d.NodeCount
	j.Tasks, j.CPUsPerTask = d.Tasks, d.CPUsPerTask
	j.CPUs, j.MemoryMB = d.Tasks*d.CPUsPerTask, d.MemoryPerNodeMB*int64(d.NodeCount)
	j.MemoryPerNodeMB = d.MemoryPerNodeMB
	p2, _ := planner.NewPolicy("smd", planner.Options{})
	second, err := p2.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(psWriteOf(d), psWriteOf(second.Decisions[0])); diff != "" {
		t.Errorf("second cycle (-first +second):\n%s", diff)
	}
}

// Options.PSChoice replaces the planner's choice of P for ps=auto by the
// usual fixed rules (the simulator's what-if): P = W or P = 1; a ps= the
// user fixed is kept.
func TestPSChoice(t *testing.T) {
	const hint = "strata: model=vgg16 batch=64 iters=20000 gpus=4 arch=ps "
	cases := []struct {
		choice, ps string
		want       int
	}{
		{"w", "ps=auto", 4}, {"1", "ps=auto", 1}, {"w", "ps=2", 2}, {"1", "ps=2", 2},
	}
	for _, tc := range cases {
		s := pt.Cluster("ps", t0).Partition("gpu", true).Nodes("n", 1, 4, 32, 256*1024, "gpu", "").
			Pending(1, 4, hint+tc.ps).Build()
		for _, policy := range []string{"smd", "fifo"} {
			p, err := planner.NewPolicy(policy, planner.Options{PSChoice: tc.choice})
			if err != nil {
				t.Fatal(err)
			}
			plan, _ := p.Plan(context.Background(), s)
			if d := plan.Decisions[0]; d.PS != tc.want || d.Tasks != 4+tc.want {
				t.Errorf("%s, choice %s, %s: PS %d with %d tasks, want %d and %d", policy, tc.choice, tc.ps, d.PS, d.Tasks, tc.want, 4+tc.want)
			}
		}
	}
	if err := (planner.Options{PSChoice: "2"}).Validate(); err == nil {
		t.Error("PSChoice 2 was accepted")
	}
}

// The memory of a PS job's servers is reserved beside its workers': a job
// that fits the node only if the servers took none waits (before issue
// 24.1 the plan started both, and Slurm would have had to refuse one).
func TestPSServersMemoryIsCharged(t *testing.T) {
	// vgg16, 2 workers and 2 servers: 2 × 8192 + 2 × 1311 = 19006 MB; the
	// other job asks 22000 MB of the node's 40000.
	s := pt.Cluster("ps", t0).Partition("gpu", true).Nodes("n", 1, 4, 32, 40000, "gpu", "").
		Pending(1, 2, "strata: model=vgg16 batch=64 iters=20000 gpus=2 arch=ps ps=2").
		Pending(2, 1, "", func(j *planner.Job) { j.MemoryMB = 22000 }).Build()
	for _, policy := range []string{"smd", "fifo"} {
		p, _ := planner.NewPolicy(policy, planner.Options{})
		plan, err := p.Plan(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		started := map[int64]bool{}
		for _, d := range plan.Decisions {
			started[d.JobID] = d.Start
			if d.JobID == 1 && d.MemoryPerNodeMB != 2*8192+2*srvMB(2) {
				t.Errorf("%s: PS job writes %d MB per node, want %d", policy, d.MemoryPerNodeMB, 2*8192+2*srvMB(2))
			}
		}
		if started[1] && started[2] {
			t.Errorf("%s: both jobs start on a node of 40000 MB; the PS job's servers need memory too", policy)
		}
	}
}

func srvMB(p int64) int64 { return 4*553436960/p>>20 + 256 }
