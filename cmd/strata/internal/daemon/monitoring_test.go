package daemon

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/strata-hpc/strata/cmd/strata/internal/collect"
	"github.com/strata-hpc/strata/cmd/strata/internal/web"
)

// The Grafana dashboard and the Prometheus alert rules shipped in the
// package (/usr/share/strata/) are checked against the programs themselves:
// the rule file is parsed and validated by Prometheus' own rule parser, and
// every metric named in a rule or a dashboard query is one that the
// daemon's, the collector's or the web page's registry exports.

var monitoringDir = filepath.Join("..", "..", "..", "..", "packaging", "monitoring")

// registryNames returns the series names the registries of the daemon,
// the collector (`strata collect`) and the web page (`strata serve`) can
// export: each metric field of their Metrics, found by reflection so that
// a new one is never missed (also the label vectors that have no child yet,
// which Gather leaves out) and the Go and process collectors' families;
// histograms and summaries add their _bucket, _sum and _count series.
func registryNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	dm, cm, wm := NewMetrics(), collect.NewMetrics(), web.NewMetrics()
	for _, r := range []struct {
		fields any // pointer to a Metrics struct
		reg    prometheus.Gatherer
	}{{dm, dm.reg}, {cm, cm.Registry()}, {wm, wm.Registry()}} {
		addRegistryNames(t, names, r.fields, r.reg)
	}
	// The registries must have been read, not guessed: a documented metric
	// of each kind and registry is there.
	for _, want := range []string{"strata_leader", "strata_rewrites_total", "strata_cycle_duration_seconds_bucket", "process_resident_memory_bytes",
		"strata_collect_samples_total", "strata_collect_spool_bytes", "strata_web_requests_total", "strata_web_request_duration_seconds_bucket"} {
		if !names[want] {
			t.Fatalf("registry names lack %s: %v", want, names)
		}
	}
	return names
}

// addRegistryNames adds the names of the metric fields of the struct that
// m points to and of the families reg gathers.
func addRegistryNames(t *testing.T, names map[string]bool, m any, reg prometheus.Gatherer) {
	t.Helper()
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	v := reflect.ValueOf(m).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i) // unexported: read through its address
		c, ok := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(prometheus.Collector)
		if !ok {
			continue
		}
		suffixes := []string{""}
		switch c.(type) {
		case prometheus.Histogram, *prometheus.HistogramVec:
			suffixes = []string{"", "_bucket", "_sum", "_count"}
		case prometheus.Summary, *prometheus.SummaryVec:
			suffixes = []string{"", "_sum", "_count"}
		}
		ch := make(chan *prometheus.Desc, 4)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			match := fqName.FindStringSubmatch(d.String())
			if match == nil {
				t.Fatalf("cannot read the name of %s", d)
			}
			for _, s := range suffixes {
				names[match[1]+s] = true
			}
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		names[f.GetName()] = true
		switch f.GetType().String() {
		case "HISTOGRAM":
			names[f.GetName()+"_bucket"], names[f.GetName()+"_sum"], names[f.GetName()+"_count"] = true, true, true
		case "SUMMARY":
			names[f.GetName()+"_sum"], names[f.GetName()+"_count"] = true, true
		}
	}
}

// metricNames returns the metric names an expression selects.
func metricNames(t *testing.T, p parser.Parser, expr string) []string {
	t.Helper()
	e, err := p.ParseExpr(expr)
	if err != nil {
		t.Fatalf("parse %q: %v", expr, err)
	}
	var out []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			name := vs.Name
			for _, lm := range vs.LabelMatchers {
				if lm.Name == model.MetricNameLabel {
					name = lm.Value
				}
			}
			out = append(out, name)
		}
		return nil
	})
	if len(out) == 0 {
		t.Errorf("%q selects no metric", expr)
	}
	return out
}

func TestAlertRules(t *testing.T) {
	names := registryNames(t)
	p := parser.NewParser(parser.Options{})
	path := filepath.Join(monitoringDir, "strata-alerts.yml")
	groups, errs := rulefmt.ParseFile(path, false, model.LegacyValidation, p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, err := range errs {
		t.Errorf("rulefmt: %v", err)
	}
	if groups == nil {
		t.Fatal("no rule groups")
	}
	// Each alert suggested in docs/operations.md, with the metric it reads.
	want := map[string]string{
		"StrataNoSuccessfulCycle": "strata_last_success_timestamp_seconds",
		"StrataNoLeader":          "strata_leader",
		"StrataRewritesFailing":   "strata_rewrites_total",
		"StrataIngestionLag":      "strata_ingestion_lag_seconds",
		"StrataCollectorSpooling": "strata_collect_spool_bytes",
		"StrataWebErrors":         "strata_web_requests_total",
	}
	got := map[string]string{}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			used := metricNames(t, p, r.Expr)
			for _, n := range used {
				if !names[n] {
					t.Errorf("rule %s: metric %s is not exported by the daemon, collector or web page", r.Alert+r.Record, n)
				}
			}
			if r.Alert != "" {
				got[r.Alert] = used[0]
			}
			if r.Alert != "" && (r.Annotations["summary"] == "" || r.Labels["severity"] == "") {
				t.Errorf("alert %s: want a summary annotation and a severity label", r.Alert)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("alerts and the metric each reads (-want +got):\n%s", diff)
	}
}

// grafanaVars are replaced before parsing: Grafana's interval variables
// stand where PromQL wants a duration.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")

// labelValues is a Grafana variable query: label_values(SELECTOR, LABEL).
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*\w+\)$`)

func TestGrafanaDashboard(t *testing.T) {
	names := registryNames(t)
	p := parser.NewParser(parser.Options{})
	b, err := os.ReadFile(filepath.Join(monitoringDir, "strata-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && (k == "expr" || (k == "query" || k == "definition") && strings.HasPrefix(s, "label_values(")) {
					exprs = append(exprs, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(dash)
	if len(exprs) < 10 {
		t.Fatalf("found only %d queries in the dashboard", len(exprs))
	}
	used := map[string]bool{}
	for _, e := range exprs {
		if m := labelValues.FindStringSubmatch(e); m != nil {
			e = m[1]
		}
		for _, n := range metricNames(t, p, grafanaVars.Replace(e)) {
			used[n] = true
			if !names[n] {
				t.Errorf("dashboard query %q: metric %s is not exported by the daemon, collector or web page", e, n)
			}
		}
	}
	// Every metric of our own (strata_*) is on the dashboard.
	var missing []string
	for n := range names {
		if strings.HasPrefix(n, "strata_") && !strings.HasSuffix(n, "_bucket") && !strings.HasSuffix(n, "_sum") &&
			!strings.HasSuffix(n, "_count") && !used[n] && !used[n+"_bucket"] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("metrics not on the dashboard: %v", missing)
	}
}
