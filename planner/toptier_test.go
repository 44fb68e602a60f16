package planner_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

const flexHint = "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=4"

// twoIslands is two partitions of 2 nodes × 4 GPUs each: gpua (T4) and
// gpub (typeB).
func twoIslands(typeB string) *pt.Builder {
	return pt.Cluster("toptier", t0).Partition("gpua", true).Partition("gpub", false).
		Nodes("a", 2, 4, 32, 256*1024, "gpua", "t4").Nodes("b", 2, 4, 32, 256*1024, "gpub", typeB)
}

func TestTopTierChoosesPartition(t *testing.T) {
	long := pt.TimeLimit(48 * time.Hour)
	tests := []struct {
		name string
		snap *planner.Snapshot
		o    planner.Options
		off  bool // the top tier off
		// want: job → the decision's Partition ("" = nothing to write)
		want map[int64]string
	}{{
		name: "the busy partition is avoided",
		snap: twoIslands("t4").Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Pending(10, 4, flexHint, pt.InPartitions("gpua", "gpub")).Build(),
		want: map[int64]string{10: "gpub"},
	}, {
		name: "a job without a hint stays where Slurm has it",
		snap: twoIslands("t4").Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Pending(10, 4, "", pt.InPartitions("gpua", "gpub")).Build(),
		want: map[int64]string{10: ""},
	}, {
		name: "rewrite=no stays",
		snap: twoIslands("t4").Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Pending(10, 4, flexHint+" rewrite=no", pt.InPartitions("gpua", "gpub")).Build(),
		want: map[int64]string{10: ""},
	}, {
		name: "the faster GPUs win when both are idle",
		snap: twoIslands("v100").Pending(10, 4, flexHint, pt.InPartitions("gpua", "gpub")).Build(),
		o:    planner.Options{GPUSpeed: map[string]float64{"t4": 1, "v100": 2.5}},
		want: map[int64]string{10: "gpub"},
	}, {
		name: "a job Strata moved stays unless another partition is clearly cheaper",
		snap: twoIslands("t4").Pending(10, 4, flexHint, pt.Narrowed("gpub", "gpua", "gpub")).Build(),
		want: map[int64]string{10: "gpub"},
	}, {
		name: "flexible jobs fill the free GPUs of the first partition, then the next",
		snap: twoIslands("t4").
			Pending(10, 4, flexHint, pt.InPartitions("gpua", "gpub"), pt.Submitted(t0.Add(-4*time.Minute))).
			Pending(11, 4, flexHint, pt.InPartitions("gpua", "gpub"), pt.Submitted(t0.Add(-3*time.Minute))).
			Pending(12, 4, flexHint, pt.InPartitions("gpua", "gpub"), pt.Submitted(t0.Add(-2*time.Minute))).
			Pending(13, 4, flexHint, pt.InPartitions("gpua", "gpub"), pt.Submitted(t0.Add(-1*time.Minute))).Build(),
		want: map[int64]string{10: "gpua", 11: "gpua", 12: "gpub", 13: "gpub"},
	}, {
		name: "a partition whose nodes cannot hold the job is not chosen",
		snap: pt.Cluster("toptier", t0).Partition("gpua", true).Partition("gpub", false).
			Nodes("a", 2, 4, 32, 256*1024, "gpua", "t4").Nodes("b", 1, 2, 32, 256*1024, "gpub", "t4").
			Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Pending(10, 4, flexHint, pt.InPartitions("gpua", "gpub")).Build(),
		want: map[int64]string{10: ""}, // waits in gpua, keeps its list
	}, {
		name: "a waiting job Strata moved gets its list back",
		snap: twoIslands("t4").Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Running(3, 4, "b0001", t0, long).Running(4, 4, "b0002", t0, long).
			Pending(10, 4, flexHint, pt.Narrowed("gpua", "gpua", "gpub")).Build(),
		want: map[int64]string{10: "gpua,gpub"},
	}, {
		name: "off: planned where Slurm has it, nothing written",
		snap: twoIslands("t4").Running(1, 4, "a0001", t0, long).Running(2, 4, "a0002", t0, long).
			Pending(10, 4, flexHint, pt.InPartitions("gpua", "gpub")).Build(),
		off:  true,
		want: map[int64]string{10: ""},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.TopTier = !tc.off
			p, err := planner.NewPolicy("smd", o)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := p.Plan(context.Background(), tc.snap)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]string{}
			for _, d := range plan.Decisions {
				if _, ok := tc.want[d.JobID]; ok {
					got[d.JobID] = d.Partition
					chosen := false
					for _, r := range d.Reasons {
						chosen = chosen || r == planner.ReasonPartitionChosen
					}
					if d.Partition != "" && !chosen {
						t.Errorf("job %d: partition %q written without reason %s: %v", d.JobID, d.Partition, planner.ReasonPartitionChosen, d.Reasons)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("partitions (-want +got):\n%s", diff)
			}
		})
	}
}

// parallel runs every plan(i) in a goroutine of its own, as the daemon does.
func parallel(n int, plan func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); plan(i) }()
	}
	wg.Wait()
}

// islandsSnapshot has four partitions in three groups: gpua, gpub, and gpuc
// with debug (which shares gpuc's first node); jobs of every kind in each,
// some listing several partitions.
func islandsSnapshot(seed uint64) *planner.Snapshot {
	s := pt.Synthetic(4, 4, 40, seed)
	b := pt.Cluster(s.ID, s.Now).Partition("debug", false).Partition("gpua", true).Partition("gpub", false).Partition("gpuc", false).
		Nodes("a", 4, 4, 32, 256*1024, "gpua", "t4").Nodes("b", 4, 4, 32, 256*1024, "gpub", "t4").
		Nodes("c", 4, 4, 32, 256*1024, "gpuc", "v100")
	b.AddToPartition("debug", "c0001")
	parts := [][]string{{"gpua"}, {"gpub"}, {"gpuc"}, {"debug"}, {"gpua", "gpub"}, {"gpub", "gpuc"}, {"gpua", "gpub", "gpuc"}}
	for k, j := range s.Jobs {
		if j.State == planner.JobRunning {
			node := fmt.Sprintf("%c%04d", "abc"[k%3], 1+k%4)
			b.Running(j.ID, min(j.GPUs(), 4), node, j.StartTime)
			continue
		}
		b.Pending(j.ID, min(j.GPUs(), 4), j.Comment, pt.Submitted(j.SubmitTime), pt.TimeLimit(j.TimeLimit),
			pt.InPartitions(parts[k%len(parts)]...))
	}
	return b.Build()
}

// TestIslandsPlannedConcurrently: planning the groups of islands
// concurrently gives exactly the plan of planning them one after another
// (run with -race: the groups share no mutable state).
func TestIslandsPlannedConcurrently(t *testing.T) {
	for _, name := range planner.PolicyNames() {
		for seed := uint64(1); seed <= 3; seed++ {
			snap := islandsSnapshot(seed)
			seq, err := planner.NewPolicy(name, planner.Options{TopTier: true})
			if err != nil {
				t.Fatal(err)
			}
			par, _ := planner.NewPolicy(name, planner.Options{TopTier: true, Run: parallel})
			want, err := seq.Plan(context.Background(), snap)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second call plans from the policy's memo
				got, err := par.Plan(context.Background(), snap)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s seed %d: concurrent plan differs (-sequential +concurrent):\n%s", name, seed, diff)
				}
			}
			moved := 0
			for _, d := range want.Decisions {
				if d.Partition != "" {
					moved++
				}
			}
			if name == "smd" && moved == 0 {
				t.Errorf("%s seed %d: no job got a partition from the top tier", name, seed)
			}
		}
	}
}

// BenchmarkPlanIslands: SMD on 4 disjoint partitions of 64 nodes × 8 GPUs
// and 10,000 pending jobs (a third listing two partitions), the groups
// planned one after another or concurrently (the daemon's way).
func BenchmarkPlanIslands(b *testing.B) {
	s := pt.Synthetic(256, 8, 10000, 1)
	names := []string{"p1", "p2", "p3", "p4"}
	bl := pt.Cluster(s.ID, s.Now)
	for _, n := range names {
		bl.Partition(n, n == "p1").Nodes(n+"n", 64, 8, 64, 512*1024, n, "a100")
	}
	for k, j := range s.Jobs {
		if j.State != planner.JobPending {
			continue
		}
		ps := []string{names[k%4]}
		if k%3 == 0 {
			ps = append(ps, names[(k+1)%4])
		}
		bl.Pending(j.ID, min(j.GPUs(), 8), j.Comment, pt.Submitted(j.SubmitTime), pt.TimeLimit(j.TimeLimit), pt.InPartitions(ps...))
	}
	snap := bl.Build()
	for _, bc := range []struct {
		name string
		run  func(int, func(int))
	}{{"sequential", nil}, {"concurrent", parallel}} {
		b.Run(bc.name, func(b *testing.B) {
			p, _ := planner.NewPolicy("smd", planner.Options{TopTier: true, Run: bc.run})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Plan(context.Background(), snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
