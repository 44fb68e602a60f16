package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/cmd/strata/internal/promserve"
)

// Metrics are the web page's Prometheus metrics (`strata serve
// --metrics-listen`), on a registry of their own: requests by kind of path
// and status class. Labels are bounded sets, never a job ID, user or
// query; every series exists from the start, at 0.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // kind, status
	duration *prometheus.HistogramVec // kind
}

// pathKinds are the values of the kind label.
var pathKinds = []string{"overview", "view", "job", "api", "search", "static", "health", "other"}

// statusClasses are the values of the status label.
var statusClasses = []string{"2xx", "3xx", "4xx", "5xx"}

// NewMetrics registers the web page's metrics on a new registry with the
// Go and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: promserve.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_web_requests_total",
			Help: "Requests to strata serve by kind of path (overview, view, job, api, search, static, health, other) and status class."},
			[]string{"kind", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "strata_web_request_duration_seconds",
			Help:    "Time to answer a request, by kind of path.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"kind"}),
	}
	m.reg.MustRegister(m.requests, m.duration)
	for _, k := range pathKinds {
		for _, s := range statusClasses {
			m.requests.WithLabelValues(k, s)
		}
		m.duration.WithLabelValues(k)
	}
	return m
}

// Registry is the registry to serve on /metrics.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// SetBuildInfo publishes strata_build_info{version, commit, goversion} = 1.
func (m *Metrics) SetBuildInfo(version, commit string) {
	promserve.SetBuildInfo(m.reg, version, commit)
}

// observe counts one answered request.
func (m *Metrics) observe(r *http.Request, status int, took time.Duration) {
	if m == nil {
		return
	}
	kind := pathKind(r.URL.Path)
	m.requests.WithLabelValues(kind, statusClass(status)).Inc()
	m.duration.WithLabelValues(kind).Observe(took.Seconds())
}

// pathKind is the kind label of a request path.
func pathKind(p string) string {
	switch {
	case p == "/":
		return "overview"
	case strings.HasPrefix(p, "/by/"):
		return "view"
	case strings.HasPrefix(p, "/job/"):
		return "job"
	case strings.HasPrefix(p, "/api/"):
		return "api"
	case p == "/search":
		return "search"
	case strings.HasPrefix(p, "/static/"):
		return "static"
	case p == "/healthz":
		return "health"
	}
	return "other"
}

func statusClass(code int) string {
	if code < 200 || code > 599 {
		return "5xx" // not an answer a client can use
	}
	return strconv.Itoa(code/100) + "xx"
}
