package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTraceFile(tb testing.TB, path string) *Trace {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadTrace(f, ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// synthTrace resamples job sizes (GPUs, duration) and arrival gaps from the
// first 300 jobs of the Alibaba trace (sizes from its GPU jobs only) and the
// first 300 jobs of ITP cluster 4 (testdata/README.md), at 0.9 offered load
// on clusterGPUs GPUs.
func synthTrace(tb testing.TB, jobs, clusterGPUs int) *Trace {
	tb.Helper()
	all := []*Trace{
		readTraceFile(tb, filepath.Join("testdata", "alibaba_openb2023_head300.csv")),
		readTraceFile(tb, filepath.Join("testdata", "itp_cluster04_head300.csv")),
	}
	tr, err := Synthesize(SynthSpec{Jobs: jobs, ClusterGPUs: clusterGPUs, Load: 0.9, MaxGPUs: 64,
		MaxDuration: 7 * 24 * 3600, Seed: 1}, all, all)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// TestSynthTrace checks the benchmarks' input: the fixtures load, and the
// synthetic trace has the asked size, GPU counts within 1..64 and the
// offered load.
func TestSynthTrace(t *testing.T) {
	tr := synthTrace(t, 10_000, 1024)
	var work float64
	for _, j := range tr.Jobs {
		if j.GPUs < 1 || j.GPUs > 64 || j.Duration > 7*24*3600 {
			t.Fatalf("job %s out of range: %+v", j.ID, j)
		}
		work += float64(j.GPUs) * j.Duration
	}
	if len(tr.Jobs) != 10_000 {
		t.Fatalf("%d jobs, want 10000", len(tr.Jobs))
	}
	if load := work / (1024 * tr.Jobs[len(tr.Jobs)-1].Submit); load < 0.85 || load > 0.95 {
		t.Errorf("offered load %.3f, want about 0.9", load)
	}
}

func TestSynthesize(t *testing.T) {
	tiny := readTraceFile(t, "testdata/tiny.csv")
	gen := func() *Trace {
		tr, err := Synthesize(SynthSpec{Jobs: 2000, ClusterGPUs: 64, Load: 0.9, MaxGPUs: 8, MaxDuration: 1000, Seed: 1},
			[]*Trace{tiny}, []*Trace{tiny})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := gen()
	var work float64
	for _, j := range tr.Jobs {
		work += float64(j.GPUs) * j.Duration
		if j.GPUs < 1 || j.GPUs > 8 || j.Duration > 1000 {
			t.Fatalf("job %s out of range: %+v", j.ID, j)
		}
	}
	span := tr.Jobs[len(tr.Jobs)-1].Submit
	if load := work / (64 * span); load < 0.89 || load > 0.91 {
		t.Errorf("offered load %.3f, want 0.9", load)
	}
	if diff := cmp.Diff(tr.Jobs, gen().Jobs); diff != "" {
		t.Errorf("same seed, different trace:\n%s", diff)
	}
}

func benchSimulate(b *testing.B, jobs int, policy string, skip bool) {
	benchSimulateIn(b, SchedulerIdeal, jobs, policy, skip)
}

// benchSimulateIn runs policy over synthTrace(jobs) on 128 × 8 GPUs with
// the given scheduler.
func benchSimulateIn(b *testing.B, scheduler string, jobs int, policy string, skip bool) {
	tr := synthTrace(b, jobs, 1024)
	cfg := Config{Scheduler: scheduler, Cluster: ClusterSpec{Nodes: 128, GPUsPerNode: 8, GPUType: "a100"}, SkipUnchanged: skip}
	b.ResetTimer()
	for b.Loop() {
		r, err := RunNamed(context.Background(), cfg, tr, policy)
		if err != nil {
			b.Fatal(err)
		}
		if r.Jobs+r.Dropped != jobs {
			b.Fatalf("%d of %d jobs finished (%d unfinished)", r.Jobs, jobs, r.Unfinished)
		}
		b.ReportMetric(r.PlanTime.Seconds(), "plan-s/op")
		b.ReportMetric(float64(r.PlanCalls), "plans/op")
		b.ReportMetric(r.AvgJCT, "avg-jct-s")
	}
}

// BenchmarkSimulate100k is the scale target: 100,000 jobs resampled from
// the Alibaba and ITP fixtures (synthTrace) on 1,024 GPUs (128 × 8) with smd
// (≤ 60 s).
// It plans at every tick, as production does.
func BenchmarkSimulate100k(b *testing.B) { benchSimulate(b, 100_000, "smd", false) }

// BenchmarkSimulate100kSkip is the same with Config.SkipUnchanged.
func BenchmarkSimulate100kSkip(b *testing.B) { benchSimulate(b, 100_000, "smd", true) }

// The same at a tenth of the size, and with fifo for comparison.
func BenchmarkSimulate10kSMD(b *testing.B)     { benchSimulate(b, 10_000, "smd", false) }
func BenchmarkSimulate10kSMDSkip(b *testing.B) { benchSimulate(b, 10_000, "smd", true) }
func BenchmarkSimulate10kFIFO(b *testing.B)    { benchSimulate(b, 10_000, "fifo", false) }

// Slurm mode (a slurmctld model starts jobs from what Strata wrote): smd,
// and Slurm alone (policy slurm), at 10,000, 30,000 and 100,000 jobs
// (scripts/bench-sim.sh runs them).
func BenchmarkSimulateSlurm10kSMD(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 10_000, "smd", false)
}
func BenchmarkSimulateSlurm30kSMD(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 30_000, "smd", false)
}
func BenchmarkSimulateSlurm100kSMD(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 100_000, "smd", false)
}
func BenchmarkSimulateSlurm10kAlone(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 10_000, PolicySlurm, false)
}
func BenchmarkSimulateSlurm30kAlone(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 30_000, PolicySlurm, false)
}
func BenchmarkSimulateSlurm100kAlone(b *testing.B) {
	benchSimulateIn(b, SchedulerSlurm, 100_000, PolicySlurm, false)
}

// The ideal mode at 30,000 jobs, between BenchmarkSimulate10kSMD and
// BenchmarkSimulate100k.
func BenchmarkSimulate30kSMD(b *testing.B) { benchSimulate(b, 30_000, "smd", false) }
