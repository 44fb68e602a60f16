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
