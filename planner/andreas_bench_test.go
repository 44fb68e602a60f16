package planner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/strata-hpc/strata/planner"
)

// BenchmarkAndreasPlan plans pending jobs with deadlines with andreas at its
// default MaxIt (100 greedy passes per partition): on a Pollux-sized
// cluster (16 nodes × 4 GPUs) and on 128 and 1,024 nodes × 8 GPUs.
func BenchmarkAndreasPlan(b *testing.B) {
	for _, tc := range []struct{ nodes, gpn, jobs int }{{16, 4, 30}, {16, 4, 100}, {128, 8, 1000}, {1024, 8, 1000}} {
		b.Run(fmt.Sprintf("nodes=%dx%d/jobs=%d", tc.nodes, tc.gpn, tc.jobs), func(b *testing.B) {
			s := deadlineSynthetic(tc.nodes, tc.gpn, tc.jobs, 1)
			p, err := planner.NewPolicy("andreas", planner.Options{EnergyWeight: 20, TardinessWeight: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Plan(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
