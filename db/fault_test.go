package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

// Postgres is stopped and restarted in the middle of ingestion: batches
// written meanwhile are spooled and replayed in order, and afterwards every
// sample is stored exactly once.
func TestIngestSurvivesPostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	sc := dcgmtest.Demo()
	sc.Duration = 30 * time.Minute
	sc.Nodes = append(sc.Nodes, dcgmtest.Node{Name: "gpu-c", GPUs: 8}, dcgmtest.Node{Name: "gpu-d", GPUs: 8})
	rec, err := dcgmtest.Generate(sc)
	if err != nil {
		t.Fatal(err)
	}
	srv := dbtest.StartServer(t)
	s := dbtest.Open(t, srv.URL, true)
	in := db.NewIngester(s, openSpool(t))
	const batches = 181 / 5 // 181 sweeps, 5 per batch
	spooled := ingestRecording(t, in, rec.Samples, rec.Schedule, 5, func(i int) {
		switch i {
		case 10:
			srv.Stop(t)
		case 20:
			srv.Start(t)
		}
	})
	if spooled < 10 {
		t.Errorf("%d batches spooled while Postgres was down, want ≥ 10", spooled)
	}
	if _, err := in.Flush(ctx); err != nil {
		t.Fatalf("final flush: %v", err)
	}
	checkStoredExactlyOnce(t, srv.URL, rec.Samples)
	t.Logf("%d samples in %d batches, %d spooled during the outage", len(rec.Samples), batches+1, spooled)
}

func checkStoredExactlyOnce(t *testing.T, url string, want []dcgm.Sample) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT gpu_uuid, ts, energy_mj, count(*) OVER (PARTITION BY gpu_uuid, ts)
		FROM gpu_sample ORDER BY gpu_uuid, ts`)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		UUID string
		TS   int64
		E    int64
	}
	got := map[key]int64{}
	for rows.Next() {
		var k key
		var ts time.Time
		var n int64
		if err := rows.Scan(&k.UUID, &ts, &k.E, &n); err != nil {
			t.Fatal(err)
		}
		k.TS = ts.UnixNano()
		got[k] += 1
		if n != 1 {
			t.Fatalf("sample %v stored %d times", k, n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantSet := map[key]int64{}
	for _, s := range want {
		wantSet[key{s.UUID, s.Time.UnixNano(), int64(s.EnergyMJ)}] = 1
	}
	if d := cmp.Diff(wantSet, got); d != "" {
		t.Errorf("stored samples (-want +got):\n%s", d)
	}
}

// The collector dies right after a replayed batch is committed, before the
// spool records it: on restart that batch is replayed again, and Postgres
// still holds every sample exactly once.
func TestSpoolReplayAfterCrashStoresOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		t.Fatal(err)
	}
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, true)
	path := t.TempDir() + "/spool.jsonl"
	sp, err := db.OpenSpool(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	const per = 40
	batches := 0
	for off := 0; off < len(rec.Samples); off += per {
		if err := sp.Append(db.Batch{Samples: rec.Samples[off:min(off+per, len(rec.Samples))]}); err != nil {
			t.Fatal(err)
		}
		batches++
	}
	stored := 0
	func() {
		defer func() {
			if r := recover(); r != nil && r != "crash" {
				panic(r)
			}
		}()
		sp.Drain(func(b db.Batch) error {
			if err := s.WriteBatch(ctx, b); err != nil {
				return err
			}
			if stored++; stored == batches/2 {
				panic("crash")
			}
			return nil
		})
	}()
	sp.Close() // the crashed collector's lock goes with it
	restarted, err := db.OpenSpool(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := db.NewIngester(s, restarted).Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := batches - batches/2 + 1; n != want {
		t.Errorf("replayed %d batches after the restart, want %d (the unrecorded one again)", n, want)
	}
	checkStoredExactlyOnce(t, url, rec.Samples)
}
