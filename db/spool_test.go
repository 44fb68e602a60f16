package db_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
)

func batchAt(sec int) db.Batch {
	return db.Batch{Samples: []dcgm.Sample{{Time: time.Unix(int64(sec), 0).UTC(), UUID: "GPU-1", Source: "replay"}}}
}

func TestSpoolKeepsOrderAndRemainder(t *testing.T) {
	sp := openSpool(t)
	for i := 0; i < 5; i++ {
		if err := sp.Append(batchAt(i)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []int64
	boom := errors.New("down")
	n, err := sp.Drain(func(b db.Batch) error {
		if len(seen) == 2 {
			return boom
		}
		seen = append(seen, b.Samples[0].Time.Unix())
		return nil
	})
	if !errors.Is(err, boom) || n != 2 {
		t.Fatalf("drain = %d, %v; want 2, boom", n, err)
	}
	n, err = sp.Drain(func(b db.Batch) error {
		seen = append(seen, b.Samples[0].Time.Unix())
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("second drain = %d, %v; want 3, nil", n, err)
	}
	if d := cmp.Diff([]int64{0, 1, 2, 3, 4}, seen); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if size, _ := sp.Size(); size != 0 {
		t.Errorf("spool size after full drain = %d, want 0", size)
	}
}

func TestSpoolIsBounded(t *testing.T) {
	sp, err := db.OpenSpool(t.TempDir()+"/s.jsonl", 300)
	if err != nil {
		t.Fatal(err)
	}
	var appended int
	for i := 0; i < 10; i++ {
		if err := sp.Append(batchAt(i)); errors.Is(err, db.ErrSpoolFull) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		appended++
	}
	if size, _ := sp.Size(); appended == 0 || appended == 10 || size > 300 {
		t.Errorf("appended %d batches, size %d; want the bound (300 B) to stop appends", appended, size)
	}
}
