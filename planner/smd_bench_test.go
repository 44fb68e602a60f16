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
		})
	}
}
