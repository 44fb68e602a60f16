package db_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
)

// spoolBenchBatch is one flush of 100 GPUs × 10 sweeps (1,000 samples,
// about 0.25 MB of JSON).
func spoolBenchBatch(t0 time.Time) db.Batch {
	var b db.Batch
	for i := 0; i < 1000; i++ {
		g := i % 100
		b.Samples = append(b.Samples, dcgm.Sample{Time: t0.Add(time.Duration(i/100) * 10 * time.Second),
			Host: fmt.Sprintf("node%03d", g/8), UUID: fmt.Sprintf("GPU-bench-%04d", g), Index: g % 8, Minor: g % 8,
			UtilGPU: float64(i % 100), UtilMem: 40, PowerW: 250.5, EnergyMJ: uint64(1e9 + i*2500),
			MemUsed: 60 << 30, MemTotal: 80 << 30, PIDs: []int32{int32(1000 + g)}, Source: "dcgm"})
	}
	return b
}

// benchSpool writes a spool file of about size bytes (one JSON batch per
// line, the format every strata version reads) and opens it.
func benchSpool(b *testing.B, size int64) (*db.Spool, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "spool.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var written int64
	for i := 0; written < size; i++ {
		line, err := json.Marshal(spoolBenchBatch(t0.Add(time.Duration(i) * 100 * time.Second)))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := w.Write(append(line, '\n'))
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil { // not the first Append's bill
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	sp, err := db.OpenSpool(path, 4<<30)
	if err != nil {
		b.Fatal(err)
	}
	return sp, path
}

// BenchmarkSpool measures, at a small and a large spool, one Append and one
// collector flush while Postgres is down (Ingester.Write: try to replay the
// spool, fail to connect, append the batch). Neither should grow with the
// spool. Postgres "down" is a closed port: the refusal is immediate, so the
// figure is the spool's own cost.
//
// Measured (2-core development machine, load 2.7, `go test -run '^$' -bench
// BenchmarkSpool -benchtime 50x -count 3 ./db`), per op, 5 MB / 200 MB:
// append 0.8-1.5 ms / 0.9-1.4 ms (the fsync); flush with Postgres down
// 4.3-4.9 ms / 3.9-5.3 ms. The spool before segments and checkpoints
// (re-read, decode and rewrite of the whole file): flush 86-94 ms /
// 2.5-2.6 s, append 1.5-1.8 ms / 1.0-1.6 ms.
func BenchmarkSpool(b *testing.B) {
	ctx := context.Background()
	down, err := db.Open(ctx, db.Config{URL: "postgres://strata@127.0.0.1:1/strata?connect_timeout=2"})
	if err != nil {
		b.Fatal(err)
	}
	defer down.Close()
	batch := spoolBenchBatch(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	for _, mb := range []int64{5, 200} {
		b.Run(fmt.Sprintf("spool=%dMB/append", mb), func(b *testing.B) {
			sp, _ := benchSpool(b, mb<<20)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := sp.Append(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("spool=%dMB/flush-db-down", mb), func(b *testing.B) {
			sp, _ := benchSpool(b, mb<<20)
			in := db.NewIngester(down, sp)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := in.Write(ctx, batch)
				if err != nil || !res.Spooled {
					b.Fatalf("write with the database down = %+v, %v; want spooled", res, err)
				}
			}
		})
	}
}
