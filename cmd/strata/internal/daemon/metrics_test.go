package daemon

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"
)

func testGauge(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func testCounter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestMetricsEndpoint runs a cycle, scrapes /metrics over HTTP and checks
// the series exist with bounded labels (never a job ID).
func TestMetricsEndpoint(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	o := testOptions()
	o.Enforce = true
	runDaemon(t, newTestDaemon(t, bed, o), 5*time.Second)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeMetrics(ctx, ln, bed.m, zerolog.New(io.Discard)) }()
	addr := ln.Addr().String()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("metrics server shutdown: %v", err)
	}
	text := string(body)
	for _, want := range []string{
		`strata_cycles_total{result="ok"} 1`,
		"strata_cycle_duration_seconds_count 1",
		`strata_rewrites_total{outcome="applied"}`,
		`strata_decisions_total{reason="admitted"}`,
		"strata_leader 1",
		"strata_enforce 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, bad := range []string{"job_id", "jobid", `job="`} {
		if strings.Contains(text, bad) {
			t.Errorf("/metrics has a per-job label %q", bad)
		}
	}
}

// TestMetricsExistBeforeAnyEvent (issue 17): the series the documented
// alerts read exist at 0 before the first failure, and build info is
// published.
func TestMetricsExistBeforeAnyEvent(t *testing.T) {
	m := NewMetrics()
	m.SetBuildInfo("1.2.3", "abc123")
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range mt.GetLabel() {
				key += "{" + l.GetName() + "=" + l.GetValue() + "}"
			}
			have[key] = true
		}
	}
	for _, want := range []string{
		"strata_rewrites_total{outcome=failed}", "strata_errors_total{stage=snapshot}", "strata_cycles_total{result=failed}",
		"strata_rewrites_held_total{guard=size_locked}", "strata_ingestion_lag_seconds", "strata_last_success_timestamp_seconds",
	} {
		if !have[want] {
			t.Errorf("series %s missing before any event", want)
		}
	}
	found := false
	for k := range have {
		if strings.HasPrefix(k, "strata_build_info{commit=abc123}") {
			found = true
		}
	}
	if !found {
		t.Errorf("no strata_build_info series: %v", have)
	}
}
