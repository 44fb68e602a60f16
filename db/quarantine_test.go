package db_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
)

// A spooled batch that Postgres refuses for good (an assignment closed
// before it opened violates gpu_assignment_check, 23514, on every retry)
// does not block the batches behind it (issue 23.3): the refused row is kept
// in <spool>.rejected with its SQLSTATE and logged, the rest of its batch and
// every later batch are stored.
func TestSpooledRejectedBatchDoesNotBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	st := dbtest.New(t)
	var logs bytes.Buffer
	sp, err := db.OpenSpool(t.TempDir()+"/spool.jsonl", 0, db.WithSpoolLogger(zerolog.New(&logs)))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	smp := func(sec int) dcgm.Sample {
		return dcgm.Sample{Time: t0.Add(time.Duration(sec) * time.Second), Host: "gpu-a", UUID: "GPU-q", Source: "replay",
			EnergyMJ: uint64(1e6 + 1000*sec)}
	}
	good := dcgm.Assignment{Job: 7, Host: "gpu-a", UUID: "GPU-q", From: t0}
	backwards := dcgm.Assignment{Job: 8, Host: "gpu-a", UUID: "GPU-q", From: t0.Add(time.Minute), To: t0.Add(10 * time.Second)}
	batches := []db.Batch{
		{Samples: []dcgm.Sample{smp(0)}, Assignments: []dcgm.Assignment{good}},
		{Samples: []dcgm.Sample{smp(10), smp(20)}, Assignments: []dcgm.Assignment{backwards, {Job: 9, Host: "gpu-a", UUID: "GPU-q", From: t0.Add(20 * time.Second)}}},
		{Samples: []dcgm.Sample{smp(30)}},
	}
	for _, b := range batches {
		if err := sp.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	in := db.NewIngester(st, sp)
	res, err := in.Write(ctx, db.Batch{Samples: []dcgm.Sample{smp(40)}})
	if err != nil || res.Spooled || res.Replayed != 3 || res.Quarantined != 1 {
		t.Fatalf("write after the spool = %+v, %v; want 3 replayed, 1 quarantined, not spooled", res, err)
	}
	if n, _ := sp.Size(); n != 0 {
		t.Errorf("spool holds %d bytes after the drain, want 0", n)
	}
	if n, err := st.CountSamples(ctx, t0, t0.Add(time.Hour)); err != nil || n != 5 {
		t.Errorf("%d samples stored (%v), want all 5", n, err)
	}
	as, err := st.JobAssignments(ctx, 9)
	if err != nil || len(as) != 1 {
		t.Errorf("job 9 (the good half of the rejected batch): %v, %v", as, err)
	}
	f, err := os.Open(sp.RejectedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []db.RejectedRecord
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r db.RejectedRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 1 {
		t.Fatalf("%d rejected records, want 1", len(recs))
	}
	got := recs[0]
	want := db.RejectedRecord{SQLState: "23514", Constraint: "gpu_assignment_check",
		Batch: db.Batch{Assignments: []dcgm.Assignment{backwards}}}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(db.RejectedRecord{}, "At", "Error")); d != "" {
		t.Errorf("rejected record (-want +got):\n%s", d)
	}
	if st := sp.Stats(); st.RejectedBatches != 1 {
		t.Errorf("stats %+v, want 1 rejected batch", st)
	}
	if !strings.Contains(logs.String(), "batch quarantined") || !strings.Contains(logs.String(), `"sqlstate":"23514"`) {
		t.Errorf("log does not say what was quarantined:\n%s", logs.String())
	}
}

// A full spool keeps a reserve for reduced batches (issue 23.1): once
// batches of samples are refused, a batch of assignment and job changes
// still fits.
func TestSpoolReserveTakesReducedBatches(t *testing.T) {
	sp, err := db.OpenSpool(t.TempDir()+"/s.jsonl", 4000, db.WithReserve(1000))
	if err != nil {
		t.Fatal(err)
	}
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		full = sp.Append(batchAt(i))
	}
	if !errors.Is(full, db.ErrSpoolFull) {
		t.Fatalf("appends never filled the spool: %v", full)
	}
	size, _ := sp.Size()
	if size > 3000 {
		t.Errorf("batches of samples filled %d bytes, beyond the bound less the reserve (3000)", size)
	}
	reduced := db.Batch{Reduced: true, Assignments: []dcgm.Assignment{{Job: 1, Host: "h", UUID: "GPU-1",
		From: time.Unix(0, 0).UTC(), To: time.Unix(60, 0).UTC()}}}
	if err := sp.Append(reduced); err != nil {
		t.Fatalf("reduced batch refused by a spool with its reserve free: %v", err)
	}
	var last db.Batch
	if _, err := sp.Drain(func(b db.Batch) error { last = b; return nil }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(reduced, last); d != "" {
		t.Errorf("reduced batch read back (-want +got):\n%s", d)
	}
}
