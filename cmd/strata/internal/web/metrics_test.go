package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
)

// TestRequestMetrics (issue 17): strata serve counts requests by kind of
// path and status class, refused logins included, with every series at 0
// from the start and no job ID, user or query in any label.
func TestRequestMetrics(t *testing.T) {
	hash, err := HashPassword("pw")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte("alice:"+hash+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	users, err := ReadHtpasswd(path)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	if before := len(series(t, m.Registry(), "strata_web_requests_total")); before != len(pathKinds)*len(statusClasses) {
		t.Fatalf("series at start: %d, want %d", before, len(pathKinds)*len(statusClasses))
	}
	h, err := New(Config{Source: reporttest.Demo(), Location: time.UTC, Factors: report.EnergyFactors{}, Log: zerolog.Nop(),
		Users: users, Metrics: m, Now: func() time.Time { return reporttest.DemoEnd }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	srv := ts.URL
	for _, tc := range []struct {
		path string
		auth bool
	}{
		{"/", true}, {"/?start=2026-11-20T22:00", true}, {"/by/day", true}, {"/job/13", true}, {"/job/424242", true},
		{"/api/energy?user=alice", true}, {"/search?q=13", true}, {"/static/charts.js", true}, {"/healthz", true},
		{"/nope", true}, {"/", false},
	} {
		req, _ := http.NewRequest("GET", srv+tc.path, nil)
		if tc.auth {
			req.SetBasicAuth("alice", "pw")
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := map[string]float64{"kind=overview,status=2xx": 2, "kind=overview,status=4xx": 1, "kind=view,status=2xx": 1,
		"kind=job,status=2xx": 1, "kind=job,status=4xx": 1, "kind=api,status=2xx": 1, "kind=search,status=3xx": 1,
		"kind=static,status=2xx": 1, "kind=health,status=2xx": 1, "kind=other,status=4xx": 1}
	// A request is counted when its handler returns, which may be just
	// after the client has read the answer: wait for the counts to settle.
	var got map[string]float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got = map[string]float64{}
		for labels, v := range series(t, m.Registry(), "strata_web_requests_total") {
			if v > 0 {
				got[labels] = v
			}
		}
		if cmp.Equal(want, got) || time.Now().After(deadline) {
			break
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests by kind and status (-want +got):\n%s", d)
	}
	if n := len(series(t, m.Registry(), "strata_web_request_duration_seconds")); n != len(pathKinds) {
		t.Errorf("duration histograms: %d, want one per kind (%d)", n, len(pathKinds))
	}
	m.SetBuildInfo("1.2.3", "abc")
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, f := range families {
		text.WriteString(f.String())
	}
	for _, leak := range []string{"alice", "424242", `"13"`} {
		if strings.Contains(text.String(), leak) {
			t.Errorf("a metric carries %s", leak)
		}
	}
	if !strings.Contains(text.String(), "strata_build_info") {
		t.Errorf("no strata_build_info")
	}
}

// series returns the values of metric family name in reg by their labels
// ("k=v,k=v"); a histogram's value is its count.
func series(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			out[strings.Join(labels, ",")] = v
		}
	}
	return out
}
