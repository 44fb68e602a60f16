package collect

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/cmd/strata/internal/promserve"
	"github.com/strata-hpc/strata/db"
)

// Metrics are the collector's Prometheus metrics (`strata collect
// --metrics-listen`), on a registry of their own. Labels are bounded sets;
// never job IDs or GPU UUIDs. Every series exists from the start, at 0.
type Metrics struct {
	reg        *prometheus.Registry
	sweeps     prometheus.Counter
	samples    *prometheus.CounterVec // result: written, spooled, lost, quarantined, skipped
	batches    *prometheus.CounterVec // result: written, spooled, reduced, replayed, lost, quarantined
	spoolBytes prometheus.Gauge
	damaged    prometheus.Counter
	lastWrite  prometheus.Gauge
	lastSample prometheus.Gauge

	seenDamaged int64 // damaged records already counted (the spool's counter is since it was opened)
}

// Batch and sample results.
const (
	resultWritten     = "written"
	resultSpooled     = "spooled"
	resultReduced     = "reduced"
	resultReplayed    = "replayed"
	resultLost        = "lost"
	resultQuarantined = "quarantined"
	resultSkipped     = "skipped"
)

// NewMetrics registers the collector's metrics on a new registry with the
// Go and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: promserve.NewRegistry(),
		sweeps: prometheus.NewCounter(prometheus.CounterOpts{Name: "strata_collect_sweeps_total",
			Help: "Sweeps of the sample source that returned samples."}),
		samples: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_collect_samples_total",
			Help: "GPU samples by what became of them: written to Postgres, spooled, lost (spool full), " +
				"quarantined (refused by Postgres for good, kept in the .rejected file), skipped (the clock went back)."}, []string{"result"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_collect_batches_total",
			Help: "Batches by result: written to Postgres, spooled, reduced (spool full: spooled without most samples), " +
				"replayed from the spool, lost (not even reduced), quarantined (some rows refused by Postgres for good)."}, []string{"result"}),
		spoolBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_collect_spool_bytes",
			Help: "Size of the spool on disk: batches waiting for Postgres."}),
		damaged: prometheus.NewCounter(prometheus.CounterOpts{Name: "strata_collect_spool_damaged_records_total",
			Help: "Spool records found damaged (torn lines) and moved to the .damaged file."}),
		lastWrite: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_collect_last_write_timestamp_seconds",
			Help: "Unix time of the last batch written to Postgres (0: none yet)."}),
		lastSample: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_collect_last_sample_timestamp_seconds",
			Help: "Time of the latest sweep's samples, Unix seconds (0: none yet)."}),
	}
	m.reg.MustRegister(m.sweeps, m.samples, m.batches, m.spoolBytes, m.damaged, m.lastWrite, m.lastSample)
	for _, r := range []string{resultWritten, resultSpooled, resultLost, resultQuarantined, resultSkipped} {
		m.samples.WithLabelValues(r)
	}
	for _, r := range []string{resultWritten, resultSpooled, resultReduced, resultReplayed, resultLost, resultQuarantined} {
		m.batches.WithLabelValues(r)
	}
	return m
}

// Registry is the registry to serve on /metrics.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// SetBuildInfo publishes strata_build_info{version, commit, goversion} = 1.
func (m *Metrics) SetBuildInfo(version, commit string) {
	promserve.SetBuildInfo(m.reg, version, commit)
}

func (m *Metrics) sweep(at time.Time) {
	if m == nil {
		return
	}
	m.sweeps.Inc()
	m.lastSample.Set(float64(at.UnixNano()) / 1e9)
}

// batch records what became of one batch of samples, and the batches the
// ingester replayed (or quarantined) from the spool before it.
func (m *Metrics) batch(samples int, res db.WriteResult, err error, now time.Time) {
	if m == nil {
		return
	}
	switch {
	case res.Spooled:
		m.batches.WithLabelValues(resultSpooled).Inc()
		m.samples.WithLabelValues(resultSpooled).Add(float64(samples))
	case res.Reduced:
		m.batches.WithLabelValues(resultReduced).Inc()
		m.samples.WithLabelValues(resultSpooled).Add(float64(res.ReducedSamples))
		m.samples.WithLabelValues(resultLost).Add(float64(samples - res.ReducedSamples))
	case err != nil:
		m.batches.WithLabelValues(resultLost).Inc()
		m.samples.WithLabelValues(resultLost).Add(float64(samples))
	default:
		m.batches.WithLabelValues(resultWritten).Inc()
		m.samples.WithLabelValues(resultWritten).Add(float64(samples))
		m.lastWrite.Set(float64(now.UnixNano()) / 1e9)
	}
	m.replayed(res, now)
}

// replayed records the batches written from the spool and the batches
// quarantined (in a Write, or at exit).
func (m *Metrics) replayed(res db.WriteResult, now time.Time) {
	if m == nil {
		return
	}
	m.batches.WithLabelValues(resultQuarantined).Add(float64(res.Quarantined))
	m.samples.WithLabelValues(resultQuarantined).Add(float64(res.QuarantinedSamples))
	if res.Replayed > 0 {
		m.batches.WithLabelValues(resultReplayed).Add(float64(res.Replayed))
		m.lastWrite.Set(float64(now.UnixNano()) / 1e9)
	}
}

// skipped counts samples not stored because their time went back.
func (m *Metrics) skipped(n int) {
	if m == nil || n == 0 {
		return
	}
	m.samples.WithLabelValues(resultSkipped).Add(float64(n))
}

// spool publishes the spool's size and its damaged records.
func (m *Metrics) spool(st db.SpoolStats) {
	if m == nil {
		return
	}
	m.spoolBytes.Set(float64(st.Bytes))
	if st.DamagedRecords > m.seenDamaged {
		m.damaged.Add(float64(st.DamagedRecords - m.seenDamaged))
		m.seenDamaged = st.DamagedRecords
	}
}
