package collect

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

// The collector's fault suite (issue 23.4), in the spirit of PostgreSQL's
// recovery tests: the demo recording (2 nodes × 4 GPUs, 37 sweeps, 4 jobs,
// a driver reload inside job 103) is replayed, one sweep per batch, while
// Postgres refuses writes in one way or another; afterwards every job's
// GPU-hours and energy equal the recording's truth within 0.5 %, and the
// log says what was quarantined. Each run logs its numbers.

func demo(t *testing.T) dcgmtest.Recording {
	t.Helper()
	rec, err := dcgmtest.Generate(dcgmtest.Demo())
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// window runs on(true) before sweep from and on(false) before sweep to.
func window(from, to int, on func(bool)) func(int) {
	return func(i int) {
		switch i {
		case from:
			on(true)
		case to:
			on(false)
		}
	}
}

// Postgres answers but refuses writes for a while (sweeps 8–17 of 37): a
// read-only primary after a failover (25006), a full disk (53100), no
// memory (53200), too many connections (53300). Every batch of the window
// is spooled and replayed once writes are accepted again; none is lost.
func TestFaultPostgresRefusesWrites(t *testing.T) {
	rec := demo(t)
	tests := []struct {
		name   string
		inject func(f *faultDB, t *testing.T, on bool)
	}{
		{"read-only after failover (25006)", func(f *faultDB, t *testing.T, on bool) { f.readOnly(t, on) }},
		{"disk full (53100, raised by a trigger)", func(f *faultDB, t *testing.T, on bool) { f.raising(t, "53100", on) }},
		{"out of memory (53200, raised by a trigger)", func(f *faultDB, t *testing.T, on bool) { f.raising(t, "53200", on) }},
		{"too many connections (53300)", func(f *faultDB, t *testing.T, on bool) { f.connectionLimit(t, on) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFaultDB(t)
			o := replay(t, f.url, rec, replayOpts{before: window(8, 18, func(on bool) { tt.inject(f, t, on) })})
			gh, en := truthError(t, f.url, rec.Schedule)
			report(t, o, gh, en)
			m := o.metrics
			if m["strata_collect_batches_total{result=spooled}"] < 9 || m["strata_collect_batches_total{result=lost}"] != 0 ||
				m["strata_collect_samples_total{result=lost}"] != 0 || m["strata_collect_batches_total{result=quarantined}"] != 0 {
				t.Errorf("want ≥ 9 batches spooled during the window, none lost or quarantined: %v", m)
			}
		})
	}
}

// A statement Postgres rejects for good (a CHECK that refuses one sample:
// 23514), while the batch holding it waits in the spool behind an outage:
// the refused row is quarantined (kept in <spool>.rejected, logged,
// counted), the rest of its batch — job 102's assignments open in it — and
// every later batch are stored.
func TestFaultRejectedStatement(t *testing.T) {
	rec := demo(t)
	f := newFaultDB(t)
	at := rec.Samples[6*8] // sweep 6 (60 s): job 102 starts
	f.exec(t, "ALTER TABLE gpu_sample ADD CONSTRAINT strata_fault_check CHECK (NOT (gpu_uuid = '"+at.UUID+
		"' AND ts = '"+at.Time.Format(time.RFC3339Nano)+"'))")
	o := replay(t, f.url, rec, replayOpts{before: window(4, 10, func(on bool) { f.readOnly(t, on) })})
	gh, en := truthError(t, f.url, rec.Schedule)
	report(t, o, gh, en)
	m := o.metrics
	if m["strata_collect_batches_total{result=quarantined}"] != 1 || m["strata_collect_samples_total{result=quarantined}"] != 1 {
		t.Errorf("want 1 batch and 1 sample quarantined: %v", m)
	}
	if !strings.Contains(o.logs, "batch quarantined") || !strings.Contains(o.logs, `"sqlstate":"23514"`) ||
		!strings.Contains(o.logs, `"constraint":"strata_fault_check"`) {
		t.Errorf("the log does not say what was quarantined:\n%s", o.logs)
	}
	kept, err := os.ReadFile(o.spool + ".rejected")
	if err != nil || !strings.Contains(string(kept), at.UUID) || strings.Count(string(kept), "\n") != 1 {
		t.Errorf("rejected file: %v\n%s", err, kept)
	}
}

// The sweep clock steps back 160 s for one sweep (200 s is stamped 40 s,
// before job 102 began): the collector does not close job 102's GPUs
// before they opened (Postgres would refuse it for good: 23514), skips
// the sweep's 8 samples (stored between earlier ones they would read as a
// counter reset), and the truth holds.
func TestFaultClockStepsBack(t *testing.T) {
	rec := demo(t)
	f := newFaultDB(t)
	o := replay(t, f.url, rec, replayOpts{shift: func(i int) time.Duration {
		if i == 20 {
			return -160 * time.Second
		}
		return 0
	}})
	gh, en := truthError(t, f.url, rec.Schedule)
	report(t, o, gh, en)
	m := o.metrics
	if m["strata_collect_samples_total{result=skipped}"] != 8 || m["strata_collect_batches_total{result=quarantined}"] != 0 {
		t.Errorf("want the stepped sweep's 8 samples skipped and nothing quarantined: %v", m)
	}
	if !strings.Contains(o.logs, "sweep clock went back") {
		t.Errorf("the log does not say the clock went back:\n%s", o.logs)
	}
}

// Issue 23.1 as reported: the database unreachable for the whole replay and
// a spool too small for it (here 24 KiB: 8 batches of samples fit, the rest
// are reduced into the reserve). Drained into the database afterwards, every
// job has its true GPU-hours and energy and its final state: no assignment
// is left open, no job missing.
func TestFaultSpoolFullWhileDatabaseDown(t *testing.T) {
	rec := demo(t)
	f := newFaultDB(t)
	down, err := db.Open(context.Background(), db.Config{URL: "postgres://strata@127.0.0.1:1/none?connect_timeout=1"})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	o := replay(t, "", rec, replayOpts{spoolMax: 24 << 10, store: down})
	m := o.metrics
	if m["strata_collect_batches_total{result=reduced}"] == 0 || m["strata_collect_batches_total{result=lost}"] != 0 {
		t.Errorf("want the spool to fill (batches reduced), none lost outright: %v", m)
	}
	// Drain: the next start of the collector, with the database back.
	o2 := replay(t, f.url, dcgmtest.Recording{Schedule: rec.Schedule}, replayOpts{spool: o.spool, spoolMax: 24 << 10})
	if o2.metrics["strata_collect_batches_total{result=replayed}"] == 0 {
		t.Fatalf("nothing drained from the spool: %v\n%s", o2.metrics, o2.logs)
	}
	st := openStore(t, f.url)
	if err := refreshAll(st, rec); err != nil {
		t.Fatal(err)
	}
	gh, en := truthError(t, f.url, rec.Schedule)
	report(t, o, gh, en)
	t.Logf("drained on the next start: %d batches", int(o2.metrics["strata_collect_batches_total{result=replayed}"]))
	var open, jobs, completed int
	if err := f.admin.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM gpu_assignment WHERE t_to IS NULL),
		(SELECT count(*) FROM job), (SELECT count(*) FROM job WHERE state = 'COMPLETED')`).Scan(&open, &jobs, &completed); err != nil {
		t.Fatal(err)
	}
	if open != 0 || jobs != 4 || completed != 4 {
		t.Errorf("%d assignments left open, %d jobs, %d completed; want 0, 4, 4", open, jobs, completed)
	}
}

// Random faults during a replay, three seeds: connections dropped at random
// sweeps, windows in which Postgres is read-only, full or refusing
// connections, and a small spool that fills while it is. The truth holds
// after every run.
func TestFaultRandom(t *testing.T) {
	rec := demo(t)
	for _, seed := range []uint64{1, 2, 3} {
		t.Run("seed="+string(rune('0'+seed)), func(t *testing.T) {
			f := newFaultDB(t)
			r := rand.New(rand.NewPCG(seed, 23))
			type win struct {
				from, to int
				on       func(bool)
			}
			kinds := []func(bool){
				func(on bool) { f.readOnly(t, on) },
				func(on bool) { f.raising(t, "53100", on) },
				func(on bool) { f.connectionLimit(t, on) },
			}
			// two windows that do not overlap, and drops between them
			a := 2 + r.IntN(8)
			b := a + 3 + r.IntN(8)
			c := b + 1 + r.IntN(4)
			wins := []win{{a, b, kinds[r.IntN(3)]}, {c, c + 3 + r.IntN(8), kinds[r.IntN(3)]}}
			drops := map[int]bool{}
			for range 4 {
				drops[1+r.IntN(36)] = true
			}
			spoolMax := int64(0)
			if r.IntN(2) == 0 {
				spoolMax = 16 << 10 // fills during a long window
			}
			t.Logf("windows %d–%d and %d–%d, drops before sweeps %v, spool bound %d", wins[0].from, wins[0].to,
				wins[1].from, wins[1].to, drops, spoolMax)
			o := replay(t, f.url, rec, replayOpts{spoolMax: spoolMax, before: func(i int) {
				for _, w := range wins {
					window(w.from, w.to, w.on)(i)
				}
				if drops[i] {
					f.dropConnections(t)
				}
			}})
			gh, en := truthError(t, f.url, rec.Schedule)
			report(t, o, gh, en)
			if n := o.metrics["strata_collect_batches_total{result=lost}"]; n != 0 {
				t.Errorf("%v batches lost", n)
			}
		})
	}
}

func openStore(t *testing.T, url string) *db.Store {
	t.Helper()
	st, err := db.Open(context.Background(), db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// refreshAll refreshes the report rollups over the whole recording, as
// `strata report refresh` does.
func refreshAll(st *db.Store, rec dcgmtest.Recording) error {
	from := rec.Schedule.Jobs[0].Start.Truncate(time.Hour)
	_, err := st.RefreshReportRollups(context.Background(), from, from.Add(24*time.Hour), 0)
	return err
}
