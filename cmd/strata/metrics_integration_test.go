package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db/dbtest"
)

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// scrapeUntil polls http://addr/metrics until every pattern matches (or 10 s
// pass) and returns the last page.
func scrapeUntil(t *testing.T, addr string, patterns ...string) string {
	t.Helper()
	var page string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page = string(b)
		ok := true
		for _, p := range patterns {
			ok = ok && regexp.MustCompile(`(?m)`+p).MatchString(page)
		}
		if ok {
			return page
		}
	}
	t.Fatalf("/metrics on %s never matched %q:\n%s", addr, patterns, page)
	return ""
}

// runInBackground runs the strata command args until the test ends.
func runInBackground(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var out strings.Builder
		if err := newApp(&out, &out).RunContext(ctx, append([]string{"strata", "--log-level", "warn"}, args...)); err != nil {
			t.Errorf("strata %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// TestCollectAndServeMetrics (issue 17): `strata collect` and `strata serve`
// serve /metrics on --metrics-listen, apart from the daemon's: samples and
// batches written, the spool, the last write; requests by kind and status;
// both with strata_build_info and no job ID in any label.
func TestCollectAndServeMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	page, err := os.ReadFile("../../dcgm/testdata/exporter-hpc-job.txt")
	if err != nil {
		t.Fatal(err)
	}
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	defer exporter.Close()
	t.Setenv("STRATA_DATABASE_URL", dbtest.URL(t))
	if out, err := runStrataDB(t, "db", "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	collectMetrics := freeAddr(t)
	runInBackground(t, "collect", "--source", "exporter", "--exporter-url", exporter.URL+"/metrics", "--interval", "100ms",
		"--flush-every", "0s", "--spool-file", t.TempDir()+"/spool.jsonl", "--metrics-listen", collectMetrics)
	got := scrapeUntil(t, collectMetrics,
		`^strata_collect_samples_total\{result="written"\} [1-9]`,
		`^strata_collect_batches_total\{result="written"\} [1-9]`,
		`^strata_collect_batches_total\{result="spooled"\} 0$`,
		`^strata_collect_spool_bytes 0$`,
		`^strata_collect_spool_damaged_records_total 0$`,
		`^strata_collect_last_write_timestamp_seconds 1\.[0-9]+e\+09$`,
		`^strata_build_info\{commit=`, `^process_resident_memory_bytes `)
	if regexp.MustCompile(`job(_id)?="`).MatchString(got) {
		t.Errorf("a collector metric has a job label:\n%s", got)
	}

	listen, serveMetrics := freeAddr(t), freeAddr(t)
	runInBackground(t, "serve", "--listen", listen, "--timezone", "UTC", "--metrics-listen", serveMetrics)
	for _, path := range []string{"/healthz", "/", "/job/424242", "/search?q=alice"} {
		for i := 0; ; i++ {
			resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).
				Get("http://" + listen + path)
			if err == nil {
				resp.Body.Close()
				break
			}
			if i > 100 {
				t.Fatalf("GET %s: %v", path, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	got = scrapeUntil(t, serveMetrics,
		`^strata_web_requests_total\{kind="overview",status="2xx"\} 1$`,
		`^strata_web_requests_total\{kind="job",status="4xx"\} 1$`,
		`^strata_web_requests_total\{kind="search",status="3xx"\} 1$`,
		`^strata_web_requests_total\{kind="api",status="5xx"\} 0$`,
		`^strata_web_request_duration_seconds_count\{kind="overview"\} 1$`,
		`^strata_build_info\{commit=`)
	if strings.Contains(got, "424242") || strings.Contains(got, "alice") {
		t.Errorf("a web metric names a job or user:\n%s", got)
	}
}
