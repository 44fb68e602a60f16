package db_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
)

const (
	benchGPUs   = 1000   // GPUs per sweep
	benchRows   = 100000 // samples per benchmark op (100 sweeps of 1,000 GPUs)
	benchBatch  = 10000  // samples per InsertSamples call, as strata collect batches
	benchPeriod = 10 * time.Second
)

// benchSamples returns benchRows samples of 1,000 GPUs starting at t0.
func benchSamples(t0 time.Time) []dcgm.Sample {
	out := make([]dcgm.Sample, 0, benchRows)
	for i := 0; i < benchRows; i++ {
		g, sweep := i%benchGPUs, i/benchGPUs
		out = append(out, dcgm.Sample{
			Time: t0.Add(time.Duration(sweep) * benchPeriod), Host: fmt.Sprintf("node%03d", g/8),
			UUID: fmt.Sprintf("GPU-bench-%04d", g), Index: g % 8, Minor: g % 8, UtilGPU: float64(i % 100),
			UtilMem: 40, PowerW: 250.5, EnergyMJ: uint64(1e9 + i*2500), MemUsed: 60 << 30, MemTotal: 80 << 30,
			PIDs: []int32{int32(1000 + g)}, Source: "replay"})
	}
	return out
}

// BenchmarkIngest measures InsertSamples (pgx CopyFrom, batches of 10,000)
// and reports samples/s and x_raw_copy: the ratio to a raw
// `\copy gpu_sample FROM file` of the same number of rows through psql,
// timed in the same iterations (interleaved, so load changes on the shared
// machine hit both alike).
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	url := dbtest.URL(b)
	s := dbtest.Open(b, url, true)
	psql := psqlPath(b)
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	rawT0 := t0.Add(-48 * time.Hour)
	samples := benchSamples(t0)
	// Warm up: partitions (also the raw run's day), GPU rows, connections.
	probe := []dcgm.Sample{{Time: rawT0, UUID: "GPU-probe", Source: "replay"}}
	if err := s.InsertSamples(ctx, append(probe, samples[:benchGPUs]...)); err != nil {
		b.Fatal(err)
	}
	var ours, raw time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		shift := time.Duration(i+1) * time.Hour // new, non-overlapping times each op
		for k := range samples {
			samples[k].Time = t0.Add(shift + time.Duration(k/benchGPUs)*benchPeriod)
		}
		raw += rawCopy(b, psql, url, samples, rawT0.Sub(t0))
		b.StartTimer()
		start := time.Now()
		for off := 0; off < len(samples); off += benchBatch {
			if err := s.InsertSamples(ctx, samples[off:off+benchBatch]); err != nil {
				b.Fatal(err)
			}
		}
		ours += time.Since(start)
	}
	b.StopTimer()
	rows := float64(b.N * benchRows)
	b.ReportMetric(rows/ours.Seconds(), "samples/s")
	b.ReportMetric(raw.Seconds()/ours.Seconds(), "x_raw_copy")
	b.ReportMetric(rows/raw.Seconds(), "raw_samples/s")
}

// rawCopy writes rows (moved by shift) as COPY text to a file and times
// psql's \copy of it into gpu_sample.
func rawCopy(b *testing.B, psql, url string, rows []dcgm.Sample, shift time.Duration) time.Duration {
	shifted := append([]dcgm.Sample(nil), rows...)
	for k := range shifted {
		shifted[k].Time = shifted[k].Time.Add(shift)
	}
	file := filepath.Join(b.TempDir(), "rows.copy")
	if err := os.WriteFile(file, copyText(shifted), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c",
		`\copy gpu_sample (ts, gpu_uuid, host, util_gpu, util_mem, power_w, energy_mj, mem_used, pids, source) FROM '`+file+`'`)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("psql \\copy: %v: %s", err, out)
	}
	return time.Since(start)
}

func copyText(rows []dcgm.Sample) []byte {
	var sb strings.Builder
	for _, r := range rows {
		pids := `\N`
		if r.PIDs != nil {
			ps := make([]string, len(r.PIDs))
			for i, p := range r.PIDs {
				ps[i] = strconv.Itoa(int(p))
			}
			pids = "{" + strings.Join(ps, ",") + "}"
		}
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%g\t%g\t%g\t%d\t%d\t%s\t%s\n", r.Time.UTC().Format(time.RFC3339Nano),
			r.UUID, r.Host, float32(r.UtilGPU), float32(r.UtilMem), float32(r.PowerW), r.EnergyMJ, r.MemUsed, pids, r.Source)
	}
	return []byte(sb.String())
}

func psqlPath(b *testing.B) string {
	if dir := os.Getenv("STRATA_PG_BIN"); dir != "" {
		return filepath.Join(dir, "psql")
	}
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql"); len(m) > 0 {
		return m[len(m)-1]
	}
	b.Fatal("psql not found (set STRATA_PG_BIN)")
	return ""
}
