package collect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
)

// values returns every strata_collect_* series of reg as "name{k=v}" → value.
func values(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "strata_collect_") {
			continue
		}
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetName() + "=" + l.GetValue() + "}"
			}
			out[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return out
}

// TestMetricsWhilePostgresIsDown (issue 17): with Postgres unreachable the
// collector's metrics say so: every batch spooled, the spool's size, no
// write time; every series exists from the start.
func TestMetricsWhilePostgresIsDown(t *testing.T) {
	m := NewMetrics()
	at0 := values(t, m.Registry())
	if len(at0) != 16 {
		t.Errorf("series at start: %d, want 16: %v", len(at0), at0)
	}
	st, err := db.Open(context.Background(), db.Config{URL: "postgres://strata@127.0.0.1:1/none?connect_timeout=1"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := Config{Source: "replay", ReplayFile: recording, Schedule: schedule, BatchSamples: 100000, FlushEvery: time.Hour,
		SpoolFile: t.TempDir() + "/spool.jsonl", SpoolMax: 1 << 30, RollupEvery: time.Hour, Metrics: m}
	in, err := OpenInput(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := takeAndRun(context.Background(), cfg, in, st, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	got := values(t, m.Registry())
	files, _ := filepath.Glob(cfg.SpoolFile + "*")
	var spooled int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && !strings.HasSuffix(f, ".pos") {
			spooled += fi.Size()
		}
	}
	// The demo recording: 8 GPUs, one sweep every 10 s for 6 minutes, one
	// batch at the end (BatchSamples and FlushEvery are never reached).
	want := map[string]float64{
		"strata_collect_sweeps_total":                  got["strata_collect_sweeps_total"],
		"strata_collect_samples_total{result=written}": 0, "strata_collect_samples_total{result=spooled}": 8 * got["strata_collect_sweeps_total"],
		"strata_collect_samples_total{result=lost}":        0,
		"strata_collect_samples_total{result=quarantined}": 0, "strata_collect_samples_total{result=skipped}": 0,
		"strata_collect_batches_total{result=written}": 0, "strata_collect_batches_total{result=spooled}": 1,
		"strata_collect_batches_total{result=replayed}": 0, "strata_collect_batches_total{result=lost}": 0,
		"strata_collect_batches_total{result=reduced}": 0, "strata_collect_batches_total{result=quarantined}": 0,
		"strata_collect_spool_bytes": float64(spooled), "strata_collect_spool_damaged_records_total": 0,
		"strata_collect_last_write_timestamp_seconds":  0,
		"strata_collect_last_sample_timestamp_seconds": got["strata_collect_last_sample_timestamp_seconds"],
	}
	if d := cmp.Diff(want, got); d != "" || got["strata_collect_sweeps_total"] < 30 || spooled == 0 ||
		got["strata_collect_last_sample_timestamp_seconds"] < float64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()) {
		t.Errorf("metrics after a replay with Postgres down (-want +got):\n%s", d)
	}
}

// The spool's damaged records are counted once each, batches by what became
// of them, and a write time is kept only for stored batches.
func TestMetricsCounting(t *testing.T) {
	m := NewMetrics()
	now := time.Unix(1800000000, 0)
	m.batch(10, db.WriteResult{Replayed: 2}, nil, now)
	m.batch(5, db.WriteResult{Spooled: true}, nil, now.Add(time.Minute))
	m.batch(7, db.WriteResult{}, errors.New("spool full"), now.Add(2*time.Minute))
	m.batch(8, db.WriteResult{Reduced: true, ReducedSamples: 2, Quarantined: 1, QuarantinedSamples: 3}, nil, now.Add(2*time.Minute))
	m.replayed(db.WriteResult{Replayed: 3}, now.Add(3*time.Minute))
	m.skipped(4)
	m.spool(db.SpoolStats{Bytes: 4096, DamagedRecords: 2})
	m.spool(db.SpoolStats{Bytes: 0, DamagedRecords: 3})
	got := values(t, m.Registry())
	want := map[string]float64{
		"strata_collect_sweeps_total":                  0,
		"strata_collect_samples_total{result=written}": 10, "strata_collect_samples_total{result=spooled}": 5 + 2,
		"strata_collect_samples_total{result=lost}":        7 + 6,
		"strata_collect_samples_total{result=quarantined}": 3, "strata_collect_samples_total{result=skipped}": 4,
		"strata_collect_batches_total{result=written}": 1, "strata_collect_batches_total{result=spooled}": 1,
		"strata_collect_batches_total{result=replayed}": 5, "strata_collect_batches_total{result=lost}": 1,
		"strata_collect_batches_total{result=reduced}": 1, "strata_collect_batches_total{result=quarantined}": 1,
		"strata_collect_spool_bytes": 0, "strata_collect_spool_damaged_records_total": 3,
		"strata_collect_last_write_timestamp_seconds":  float64(now.Add(3 * time.Minute).Unix()),
		"strata_collect_last_sample_timestamp_seconds": 0,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var none *Metrics // a collector without metrics
	none.batch(1, db.WriteResult{}, nil, now)
	none.spool(db.SpoolStats{})
	none.sweep(now)
	none.replayed(db.WriteResult{Replayed: 1}, now)
	none.skipped(1)
}
