package db_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

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
	sp, err := db.OpenSpool(t.TempDir()+"/s.jsonl", 300, db.WithReserve(0)) // the bound alone: no room kept for reduced batches
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

// appendRaw writes bytes at the end of the spool file as a crash or a disk
// fault would leave them: no framing, no fsync.
func appendRaw(t *testing.T, path, raw string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(raw); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// drainAll drains sp (failing the first failFirst writes, as a database
// that is down) and returns the seconds of the batches seen, in order.
func drainAll(t *testing.T, sp *db.Spool, failFirst int) []int64 {
	t.Helper()
	var seen []int64
	calls := 0
	for round := 0; round < failFirst+1; round++ {
		_, err := sp.Drain(func(b db.Batch) error {
			calls++
			if calls <= failFirst {
				return db.ErrUnavailable
			}
			seen = append(seen, b.Samples[0].Time.Unix())
			return nil
		})
		if round == failFirst && err != nil {
			t.Fatalf("last drain: %v", err)
		}
	}
	return seen
}

// Damaged bytes (a torn append, garbage) cost only themselves: every intact
// batch is drained, in order, whether the database is up or was down at the
// first drain.
func TestSpoolRecoversIntactBatches(t *testing.T) {
	torn := `{"samples":[{"time":"1970-01-01T00:00:09Z","host":"","uu` // killed mid-write
	merged := torn + `{"samples":[{"time":"1970-01-01T00:00:01Z","host":"","uuid":"GPU-1","index":0,"minor":0,"util_gpu":0,"util_mem":0,"power_w":0,"energy_mj":0,"mem_used":0,"mem_total":0,"source":"replay"}]}` + "\n"
	tests := []struct {
		name      string
		steps     []string // "N": Append(batchAt(N)); anything else: raw bytes
		failFirst int
		want      []int64
		damaged   []string // lines of the .damaged file
	}{
		{"torn append, then three appends", []string{"0", torn, "1", "2", "3"}, 0, []int64{0, 1, 2, 3}, []string{torn}},
		{"torn append, database down at first", []string{"0", torn, "1", "2", "3"}, 1, []int64{0, 1, 2, 3}, []string{torn}},
		{"garbage line between appends, database down", []string{"0", "1", "not json\n", "3", "4"}, 1, []int64{0, 1, 3, 4}, []string{"not json"}},
		{"torn tail, never appended to again", []string{"0", "1", torn}, 0, []int64{0, 1}, []string{torn}},
		{"torn append merged with the next one (older strata)", []string{"0", merged, "2"}, 0, []int64{0, 1, 2}, []string{torn}},
		{"blank lines are not damage", []string{"0", "\n\n", "1"}, 0, []int64{0, 1}, nil},
		{"nothing damaged", []string{"0", "1"}, 1, []int64{0, 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "spool.jsonl")
			var logs bytes.Buffer
			sp, err := db.OpenSpool(path, 0, db.WithSpoolLogger(zerolog.New(&logs)))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.steps {
				n, err := strconv.Atoi(s)
				if err != nil {
					appendRaw(t, path, s)
					continue
				}
				if err := sp.Append(batchAt(n)); err != nil {
					t.Fatal(err)
				}
			}
			got := drainAll(t, sp, tt.failFirst)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("drained (-want +got):\n%s", d)
			}
			var damaged []string
			if b, err := os.ReadFile(sp.DamagedPath()); err == nil {
				damaged = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.damaged, damaged); d != "" {
				t.Errorf("quarantined (-want +got):\n%s", d)
			}
			var wantBytes int64
			for _, l := range tt.damaged {
				wantBytes += int64(len(l))
			}
			want := db.SpoolStats{DamagedRecords: int64(len(tt.damaged)), DamagedBytes: wantBytes}
			if d := cmp.Diff(want, sp.Stats()); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
			if n := strings.Count(logs.String(), `"level":"error"`); n != len(tt.damaged) {
				t.Errorf("%d error log lines, want one per damaged record:\n%s", n, logs.String())
			}
			// Nothing is left but the quarantine.
			if err := sp.Close(); err != nil {
				t.Fatal(err)
			}
			left, _ := filepath.Glob(path + "*")
			if tt.damaged != nil {
				want := []string{sp.DamagedPath()}
				if d := cmp.Diff(want, left); d != "" {
					t.Errorf("files left (-want +got):\n%s", d)
				}
			} else if len(left) != 0 {
				t.Errorf("files left after a full drain: %v", left)
			}
		})
	}
}

// fileIDs identifies the files in dir by device and inode, so that a test
// can tell a file rewritten (a new inode) from one renamed or appended to.
func fileIDs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		ids = append(ids, fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	}
	sort.Strings(ids)
	return ids
}

// A drain that fails (database down) rewrites nothing: the cost of a flush
// during an outage must not grow with the spool.
func TestSpoolFailedDrainRewritesNothing(t *testing.T) {
	dir := t.TempDir()
	sp, err := db.OpenSpool(filepath.Join(dir, "spool.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := sp.Append(batchAt(i)); err != nil {
			t.Fatal(err)
		}
	}
	before := fileIDs(t, dir)
	stored := 0
	n, err := sp.Drain(func(db.Batch) error {
		if stored == 2 {
			return db.ErrUnavailable
		}
		stored++
		return nil
	})
	if n != 2 || !errors.Is(err, db.ErrUnavailable) {
		t.Fatalf("drain = %d, %v; want 2, ErrUnavailable", n, err)
	}
	// The files holding the batches are still there (maybe renamed, and
	// with a small checkpoint file beside them), not replaced by copies.
	after := map[string]bool{}
	for _, id := range fileIDs(t, dir) {
		after[id] = true
	}
	for _, id := range before {
		if !after[id] {
			t.Errorf("file %s replaced by a failed drain (before: %v, after: %v)", id, before, fileIDs(t, dir))
		}
	}
	got := drainAll(t, sp, 0)
	if d := cmp.Diff([]int64{2, 3, 4}, got); d != "" {
		t.Errorf("next drain (-want +got):\n%s", d)
	}
}

// errCrash stands for the process dying inside Drain.
type errCrash struct{}

// drainThenCrash drains sp, "storing" batches into stored, and dies (a
// panic, recovered here) right after storing the crashAt-th one — before
// the spool can record it.
func drainThenCrash(t *testing.T, sp *db.Spool, stored *[]int64, crashAt int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errCrash); !ok {
				panic(r)
			}
		}
	}()
	sp.Drain(func(b db.Batch) error {
		*stored = append(*stored, b.Samples[0].Time.Unix())
		if len(*stored) == crashAt {
			panic(errCrash{})
		}
		return nil
	})
	t.Fatalf("no crash at batch %d", crashAt)
}

// Crashes and restarts lose nothing: a restart resumes where the last drain
// recorded its progress, across segments, and a batch stored but not yet
// recorded is replayed (the database keeps it once: the writes are
// idempotent).
func TestSpoolResumesAfterCrash(t *testing.T) {
	tests := []struct {
		name    string
		batches int
		crashAt int     // crash right after storing this many batches (0: no first drain)
		stale   string  // a checkpoint left by an earlier crash, written before opening
		want    []int64 // stored, in order, over both runs
	}{
		{"crash after storing, before recording", 10, 4, "", []int64{0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9}},
		{"crash in a later segment", 10, 8, "", []int64{0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9}},
		{"crash at the last batch", 10, 10, "", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9}},
		{"stale checkpoint of a removed segment", 10, 0, "7 1234\n", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"unreadable checkpoint", 10, 0, "garbage", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "spool.jsonl")
			if tt.stale != "" {
				if err := os.WriteFile(path+".pos", []byte(tt.stale), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// Small segments: 3 batches each.
			seg := int64(len(mustJSON(t, batchAt(0)))+1) * 3
			sp, err := db.OpenSpool(path, 0, db.WithSegmentBytes(seg))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tt.batches; i++ {
				if err := sp.Append(batchAt(i)); err != nil {
					t.Fatal(err)
				}
			}
			var stored []int64
			if tt.crashAt > 0 {
				drainThenCrash(t, sp, &stored, tt.crashAt)
			}
			sp.Close() // the crashed collector's lock goes with it
			restarted, err := db.OpenSpool(path, 0, db.WithSegmentBytes(seg))
			if err != nil {
				t.Fatal(err)
			}
			stored = append(stored, drainAll(t, restarted, 0)...)
			if err := restarted.Close(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, stored); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
			if left, _ := filepath.Glob(path + "*"); len(left) != 0 {
				t.Errorf("files left after a full drain: %v", left)
			}
		})
	}
}

// Appends made while a drain is pending (the database went down again
// halfway) come after the rest, in order, across segment rotations.
func TestSpoolInterleavedAppendsAndDrains(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spool.jsonl")
	seg := int64(len(mustJSON(t, batchAt(0)))+1) * 2
	sp, err := db.OpenSpool(path, 0, db.WithSegmentBytes(seg))
	if err != nil {
		t.Fatal(err)
	}
	var stored []int64
	next := 0
	for round := 0; round < 6; round++ {
		for k := 0; k < 3; k++ {
			if err := sp.Append(batchAt(next)); err != nil {
				t.Fatal(err)
			}
			next++
		}
		budget := 2 // the database takes two batches, then fails
		sp.Drain(func(b db.Batch) error {
			if budget == 0 {
				return db.ErrUnavailable
			}
			budget--
			stored = append(stored, b.Samples[0].Time.Unix())
			return nil
		})
	}
	stored = append(stored, drainAll(t, sp, 0)...)
	var want []int64
	for i := 0; i < next; i++ {
		want = append(want, int64(i))
	}
	if d := cmp.Diff(want, stored); d != "" {
		t.Errorf("stored (-want +got):\n%s", d)
	}
	if size, err := sp.Size(); size != 0 || err != nil {
		t.Errorf("size after a full drain = %d, %v", size, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
