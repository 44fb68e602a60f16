package planner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
)

// BenchmarkPlanSMD plans 100 / 1,000 / 10,000 pending jobs on 1,024 nodes ×
// 8 GPUs (half the nodes partly busy) with SMD. Target: ≤ 1 s and ≤ 512 MiB
// for 10,000 jobs.
func BenchmarkPlanSMD(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s := plannertest.Synthetic(1024, 8, n, 1)
			benchWarm(b, s)
		})
	}
}

// BenchmarkPlanSMDCold is BenchmarkPlanSMD with a new policy every plan, so
// the per-policy memo is empty: the cost of a daemon's first cycle (or of a
// queue that changed completely). BenchmarkPlanSMD measures the steady state,
// where consecutive cycles share most jobs.
func BenchmarkPlanSMDCold(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s := plannertest.Synthetic(1024, 8, n, 1)
			b.ReportAllocs()
			for b.Loop() {
				p, err := planner.NewPolicy("smd", planner.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Plan(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanSMDPreemptible is BenchmarkPlanSMD with every running job a
// preemptible long ImageNet job, so that SMD weighs preempting them for
// the waiting jobs every plan (at most 8 candidates, 64 waiting jobs per
// evaluation, 4 preemptions per island and cycle).
func BenchmarkPlanSMDPreemptible(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s := plannertest.Synthetic(1024, 8, n, 1)
			for k := range s.Jobs {
				if j := &s.Jobs[k]; j.State == planner.JobRunning {
					plannertest.Preemptible(fmt.Sprintf("strata: model=imagenet batch=3200 iters=200000 gpus=1-%d preempt=yes", j.GPUs()))(j)
				}
			}
			benchWarm(b, s)
		})
	}
}

// BenchmarkPlanSMDBurstBuffer is BenchmarkPlanSMD with a saturated
// burst-buffer pool (10 TiB, 9 TiB in use, 1 GiB/s per transfer): every
// second pending job asks for 150 GiB (an ImageNet copy), the others for 5
// GiB, so most wait for space: the pool's profile in the list schedule and
// the waiting-for-space rule (bbplan.go) on every plan.
func BenchmarkPlanSMDBurstBuffer(b *testing.B) {
	const gib = int64(1) << 30
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s := plannertest.Synthetic(1024, 8, n, 1)
			s.BurstBufferPools = []planner.BurstBufferPool{{Name: "bb", CapacityBytes: 10 << 40, UsedBytes: 9 << 40, BandwidthBps: float64(gib)}}
			k := 0
			for i := range s.Jobs {
				if j := &s.Jobs[i]; j.State == planner.JobPending {
					j.BurstBufferPool, j.BurstBufferBytes = "bb", 5*gib
					if k%2 == 0 {
						j.BurstBufferBytes = 150 * gib
					}
					k++
				}
			}
			benchWarm(b, s)
		})
	}
}

// benchWarm plans s with one SMD policy again and again: the steady state,
// where the memo carries each job's work from one plan to the next.
func benchWarm(b *testing.B, s *planner.Snapshot) {
	p, err := planner.NewPolicy("smd", planner.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Plan(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}
