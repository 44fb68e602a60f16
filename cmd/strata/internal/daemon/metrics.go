package daemon

import (
	"context"
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/promserve"
	"github.com/strata-hpc/strata/decide"
)

// Metrics are the daemon's Prometheus metrics. Labels are bounded
// sets (reason codes, outcomes, guards, stages); never job IDs.
type Metrics struct {
	reg           *prometheus.Registry
	cycleDuration prometheus.Histogram
	cycles        *prometheus.CounterVec // result: ok, failed, standby
	decisions     *prometheus.CounterVec // reason code of stored decisions
	writes        *prometheus.CounterVec // Apply outcome of decisions sent
	held          *prometheus.CounterVec // guard that held a write back
	errors        *prometheus.CounterVec // stage
	leader        prometheus.Gauge
	enforce       prometheus.Gauge
	pending       prometheus.Gauge
	lastSuccess   prometheus.Gauge
	unsaved       prometheus.Gauge
	ingestLag     prometheus.Gauge
	clockSkew     prometheus.Gauge
}

// NewMetrics registers the metrics on a registry of their own (no
// global state), with the Go and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: promserve.NewRegistry(),
		cycleDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "strata_cycle_duration_seconds",
			Help:    "Duration of successful plan cycles (snapshot, plan, apply, save).",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}),
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_cycles_total",
			Help: "Plan cycles by result (ok, failed, standby)."}, []string{"result"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_decisions_total",
			Help: "Recorded planner decisions by reason code."}, []string{"reason"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_rewrites_total",
			Help: "Job updates sent to Apply by outcome (applied, dry-run, unchanged, skipped-*, refused, failed, not-sent)."}, []string{"outcome"}),
		held: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_rewrites_held_total",
			Help: "Job updates held back by a daemon guard, by guard."}, []string{"guard"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_errors_total",
			Help: "Errors by stage (connect, snapshot, database, lock, plan, apply, save, audit_dropped, prune, reload, history, cycle)."}, []string{"stage"}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_leader",
			Help: "1 while this daemon holds the writer lock, 0 in standby."}),
		enforce: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_enforce",
			Help: "1 in enforce mode, 0 in shadow (dry-run) mode."}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_pending_jobs",
			Help: "Pending jobs in the daemon's scope at the last cycle."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_last_success_timestamp_seconds",
			Help: "Unix time of the last successful cycle."}),
		unsaved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_audit_unsaved_cycles",
			Help: "Cycles waiting in memory for Postgres."}),
		ingestLag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_ingestion_lag_seconds",
			Help: "Age of the newest GPU sample in Postgres (telemetry ingestion lag)."}),
		clockSkew: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_clock_skew_seconds",
			Help: "slurmctld's clock minus this host's (GET /diag), measured every 10 minutes."}),
	}
	m.reg.MustRegister(m.cycleDuration, m.cycles, m.decisions, m.writes, m.held, m.errors, m.leader,
		m.enforce, m.pending, m.lastSuccess, m.unsaved, m.ingestLag, m.clockSkew)
	// Every series the documented alerts and dashboards read exists from
	// the start, at 0: an alert on a rate of failures must have a series
	// before the first failure.
	for _, r := range []string{resultOK, resultFailed, resultStandby} {
		m.cycles.WithLabelValues(r)
	}
	for _, o := range decide.Outcomes() {
		m.writes.WithLabelValues(string(o))
	}
	for _, s := range Stages() {
		m.errors.WithLabelValues(string(s))
	}
	for _, g := range decide.Names() {
		m.held.WithLabelValues(string(g))
	}
	return m
}

// SetBuildInfo publishes strata_build_info{version, commit, goversion} = 1.
func (m *Metrics) SetBuildInfo(version, commit string) {
	promserve.SetBuildInfo(m.reg, version, commit)
}

func (m *Metrics) setMode(enforce bool) {
	if enforce {
		m.enforce.Set(1)
	} else {
		m.enforce.Set(0)
	}
}

// ServeMetrics serves /metrics on ln until ctx ends, then shuts the
// server down (its serving goroutine is joined before returning).
func ServeMetrics(ctx context.Context, ln net.Listener, m *Metrics, log zerolog.Logger) error {
	return promserve.Serve(ctx, ln, m.reg, log)
}
