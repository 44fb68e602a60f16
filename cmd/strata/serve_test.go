package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// newTestWeb serves demoFake with a fixed clock just after the demo.
func newTestWeb(t *testing.T, users htpasswd) *httptest.Server {
	t.Helper()
	h, err := newWebServer(webConfig{Source: demoFake(), Location: time.UTC, Factors: energyFactors{Currency: "EUR"}, Log: zerolog.Nop(), Users: users,
		Now: func() time.Time { return time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[hd][^>]*>(?:<a [^>]*>)?(.*?)(?:</a>)?</t[hd]>`)
)

// tableRows returns the cells of the body rows of the table with id, joined
// with '|' like `report -P -n` prints them.
func tableRows(t *testing.T, page, id string) string {
	t.Helper()
	start := strings.Index(page, `<table id="`+id+`">`)
	if start < 0 {
		t.Fatalf("no table %q in page", id)
	}
	body := page[start:]
	body = body[strings.Index(body, "<tbody>"):strings.Index(body, "</tbody>")]
	var b strings.Builder
	for _, row := range rowRE.FindAllStringSubmatch(body, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, c[1])
		}
		b.WriteString(strings.Join(cells, "|") + "\n")
	}
	return b.String()
}

// The page's tables show exactly what the CLI prints for the same window.
func TestOverviewMatchesCLI(t *testing.T) {
	srv := newTestWeb(t, nil)
	code, hdr, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00")
	if code != 200 {
		t.Fatalf("GET / = %d: %s", code, page)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q does not restrict scripts to the server", csp)
	}
	figures := "Jobs,GPUHours,Energy,EnergyRaw,MeanUtil,IdleEnergy,IdlePct"
	for _, tc := range []struct{ table, args string }{
		{"users", "report energy -P -n --by user --format=User," + figures},
		{"accounts", "report energy -P -n --by account --format=Account," + figures},
		{"series", "report energy -P -n --by hour --format=Hour,Jobs,GPUHours,Energy,IdleEnergy"},
		{"decisions", "report decisions -P -n"},
	} {
		want := run(t, demoFake(), tc.args+" "+demoWindow)
		if d := cmp.Diff(want, tableRows(t, page, tc.table)); d != "" {
			t.Errorf("table %s vs strata %s (-cli +page):\n%s", tc.table, tc.args, d)
		}
	}
	if got, want := tableRows(t, page, "idle"), "12|bert|bob|2.00|0.200|2.00|0.200|100.0\n"; got != want {
		t.Errorf("idle table = %q, want %q", got, want)
	}
	for _, s := range []string{`id="total-energy">9.000 kWh`, `href="/job/12"`,
		`<a href="/?account=vision&amp;end=2026-11-21T03%3A00&amp;start=2026-11-20T22%3A00">vision</a>`, `src="/static/uPlot.iife.min.js"`,
		`<script type="application/json" id="chart-data" data-kind="overview">{"step":"hour","from":1795212000,"to":1795230000,"x":[1795212000,`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("page refers to an external URL (must work air-gapped)")
	}
}

func TestAPIMatchesCLIJSON(t *testing.T) {
	srv := newTestWeb(t, nil)
	_, _, body := get(t, srv.URL+"/api/energy?by=user&by=day&start=2026-11-20T22:00&end=2026-11-21T03:00")
	var api, cli energyReport
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if err := json.Unmarshal([]byte(run(t, demoFake(), "report energy --json --by user,day "+demoWindow)), &cli); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cli, api); d != "" || len(api.Rows) != 3 {
		t.Errorf("api vs cli (-cli +api), %d rows:\n%s", len(api.Rows), d)
	}
}

func TestJobPageAndErrors(t *testing.T) {
	srv := newTestWeb(t, nil)
	code, _, page := get(t, srv.URL+"/job/13")
	if code != 200 || !strings.Contains(page, "Job 13 <small>gpt</small>") {
		t.Fatalf("GET /job/13 = %d: %.300s", code, page)
	}
	if got, want := tableRows(t, page, "energy"), "16.00|4.800|17280000|95.0|0.00|0.000|0.0\n"; got != want {
		t.Errorf("job energy table = %q, want %q", got, want)
	}
	if n := strings.Count(tableRows(t, page, "gpus"), "\n"); n != 8 {
		t.Errorf("GPU table has %d rows, want 8", n)
	}
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/job/999", 404}, {"GET", "/job/abc", 400}, {"GET", "/api/job/999", 404},
		{"GET", "/?start=yesterday-ish", 400}, {"GET", "/api/energy?by=team", 400},
		{"POST", "/", 405}, {"DELETE", "/api/energy", 405}, {"GET", "/nope", 404},
		{"GET", "/static/uPlot.iife.min.js", 200}, {"GET", "/static/charts.js", 200}, {"HEAD", "/", 200},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestBasicAuth(t *testing.T) {
	h, err := hashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte("# admins\nalice:"+h+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readHtpasswd(path); err == nil {
		t.Errorf("a group-readable auth file was accepted")
	}
	os.Chmod(path, 0o600)
	users, err := readHtpasswd(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestWeb(t, users)
	for _, tc := range []struct {
		user, pass string
		want       int
	}{{"", "", 401}, {"alice", "wrong", 401}, {"bob", "correct horse", 401}, {"alice", "correct horse", 200}, {"alice", "correct horse", 200}} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/decisions", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s:%s → %d, want %d", tc.user, tc.pass, resp.StatusCode, tc.want)
		}
	}
}

// staleFake's rollups stop at 23:00 while GPUs ran until 03:00.
type staleFake struct{ *fakeSource }

func (staleFake) ReportFreshness(context.Context) (time.Time, time.Time, error) {
	return time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC), nil
}

func TestStaleRollupsAreShown(t *testing.T) {
	for _, tc := range []struct {
		src  reportSource
		want bool
	}{{demoFake(), false}, {staleFake{demoFake()}, true}} {
		h, err := newWebServer(webConfig{Source: tc.src, Location: time.UTC, Log: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00")
		srv.Close()
		got := strings.Contains(page, `id="stale">Incomplete: the report rollups reach 2026-11-20 23:00 but GPUs were in use until 2026-11-21 03:00`)
		if got != tc.want {
			t.Errorf("%T: stale notice shown = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestOverviewKeepsFilters(t *testing.T) {
	srv := newTestWeb(t, nil)
	_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00&user=alice")
	for _, s := range []string{`<input type="hidden" name="user" value="alice">`, "only user alice"} {
		if !strings.Contains(page, s) {
			t.Errorf("filtered page lacks %q", s)
		}
	}
	if got, want := tableRows(t, page, "users"), "alice|2|32.00|8.800|31680000|87.5|0.000|0.0\n"; got != want {
		t.Errorf("users table = %q, want %q", got, want)
	}
}

func TestEmptyDatabasePages(t *testing.T) {
	h, err := newWebServer(webConfig{Source: &fakeSource{}, Location: time.UTC, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, _, page := get(t, srv.URL+"/")
	if code != 200 || !strings.Contains(page, "No GPU time recorded in this window.") ||
		!strings.Contains(page, `"x":[`) || strings.Count(page, "No data in this window.") != 5 {
		t.Errorf("empty overview = %d:\n%.2000s", code, page)
	}
	code, _, body := get(t, srv.URL+"/api/energy")
	if code != 200 || !strings.Contains(body, `"rows": []`) {
		t.Errorf("empty /api/energy = %d: %s", code, body)
	}
}

// Windows longer than three days are charted per day.
func TestOverviewPerDayForLongWindows(t *testing.T) {
	srv := newTestWeb(t, nil)
	_, _, page := get(t, srv.URL+"/?start=2026-11-15&end=2026-11-22")
	want := run(t, demoFake(), "report energy -P -n --by day --format=Day,Jobs,GPUHours,Energy,IdleEnergy -S 2026-11-15 -E 2026-11-22 --timezone UTC")
	if d := cmp.Diff(want, tableRows(t, page, "series")); d != "" || !strings.Contains(page, `{"step":"day"`) {
		t.Errorf("per-day series (-cli +page):\n%s", d)
	}
}
