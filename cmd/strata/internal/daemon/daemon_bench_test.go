package daemon

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
	"github.com/strata-hpc/strata/slurm"
)

// BenchmarkDaemonCycle measures one shadow cycle of the daemon on in-memory
// fakes (no HTTP, no SQL): plan + guards + apply (dry-run) + record, with
// and without the FIFO comparison plan. BenchmarkDaemonOverhead isolates
// what the daemon adds to the planner: guards and the audit record.
func BenchmarkDaemonCycle(b *testing.B) {
	for _, size := range []struct{ nodes, pending int }{{16, 100}, {128, 1000}, {1024, 10000}} {
		for _, compare := range [][]string{nil, {"fifo"}} {
			b.Run(fmt.Sprintf("jobs=%d/compare=%v", size.pending, compare), func(b *testing.B) {
				snap := plannertest.Synthetic(size.nodes, 8, size.pending, 1)
				bed := testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}
				o := testOptions()
				o.Compare = compare
				d := benchDaemon(b, bed, o)
				b.ResetTimer()
				for b.Loop() {
					d.lastStored = map[int64]string{} // store every decision, as in a first cycle
					if st := d.runCycle(context.Background()); st != cycleOK {
						b.Fatalf("cycle status %v", st)
					}
				}
			})
		}
	}
}

func BenchmarkDaemonOverhead(b *testing.B) {
	snap := plannertest.Synthetic(1024, 8, 10000, 1)
	p, err := planner.NewPolicy("smd", planner.Options{Interval: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	plan, err := p.Plan(context.Background(), snap)
	if err != nil {
		b.Fatal(err)
	}
	d := benchDaemon(b, testBed{cl: newFakeCluster(snap), pg: newFakePostgres(), m: NewMetrics()}, testOptions())
	jobs := decide.JobIndex(snap)
	b.ResetTimer()
	for b.Loop() {
		vs := decide.Plan(plan, jobs, map[int64]int{}, nil, snap.Now, d.opts.Guard)
		d.lastStored = map[int64]string{}
		rec := d.record(snap, plan, jobs, vs, emptyReport(), 1, time.Now())
		if len(rec.Decisions) == 0 {
			b.Fatal("nothing recorded")
		}
	}
}

func benchDaemon(b *testing.B, bed testBed, o Options) *Daemon {
	deps := Deps{Connect: func(context.Context) (Cluster, error) { return bed.cl, nil },
		Open: func(context.Context) (Store, error) { return bed.pg, nil }, Now: time.Now}
	d, err := New(zerolog.New(io.Discard), o, deps, bed.m)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func emptyReport() slurm.ApplyReport { return slurm.ApplyReport{DryRun: true} }
