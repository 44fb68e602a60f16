package web

import (
	"bytes"
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

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// newTestWeb serves src with a fixed clock just after the demo window.
func newTestWeb(t *testing.T, src report.Source, users Htpasswd) *httptest.Server {
	t.Helper()
	h, err := New(Config{Source: src, Location: time.UTC, Factors: report.EnergyFactors{Currency: "EUR"}, Log: zerolog.Nop(), Users: users,
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

// demoQuery is the demo window in UTC as `strata report` would make it.
func demoQuery(by []db.ReportDim, m report.OutputMode) report.Query {
	return report.Query{Filter: db.ReportFilter{From: reporttest.DemoStart, To: reporttest.DemoEnd}, By: by, Mode: m, Loc: time.UTC}
}

// cli prints what `strata report energy|decisions -P -n --format=format`
// prints for q over src (the command hands its flags to these functions).
func cli(t *testing.T, src report.Source, kind string, q report.Query) string {
	t.Helper()
	var out bytes.Buffer
	open := func() (report.Source, func(), error) { return src, func() {}, nil }
	var err error
	if kind == "decisions" {
		err = report.Decisions(context.Background(), &out, open, q)
	} else {
		err = report.Energy(context.Background(), &out, open, q, report.EnergyFactors{Currency: "EUR"}, zerolog.Nop())
	}
	if err != nil {
		t.Fatalf("report %s: %v", kind, err)
	}
	return out.String()
}

// The page's tables show exactly what the CLI prints for the same window.
func TestOverviewMatchesCLI(t *testing.T) {
	src := reporttest.Demo()
	srv := newTestWeb(t, src, nil)
	code, hdr, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00")
	if code != 200 {
		t.Fatalf("GET / = %d: %s", code, page)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q does not restrict scripts to the server", csp)
	}
	bare := func(format string) report.OutputMode {
		return report.OutputMode{Parsable: true, NoHeader: true, Format: format}
	}
	figures := "Jobs,GPUHours,Energy,EnergyRaw,MeanUtil,IdleEnergy,IdlePct"
	for _, tc := range []struct {
		table, kind string
		q           report.Query
	}{
		{"users", "energy", demoQuery([]db.ReportDim{db.DimUser}, bare("User,"+figures))},
		{"accounts", "energy", demoQuery([]db.ReportDim{db.DimAccount}, bare("Account,"+figures))},
		{"series", "energy", demoQuery([]db.ReportDim{db.DimHour}, bare("Hour,Jobs,GPUHours,Energy,IdleEnergy"))},
		{"decisions", "decisions", demoQuery(nil, bare(""))},
	} {
		want := cli(t, src, tc.kind, tc.q)
		if d := cmp.Diff(want, tableRows(t, page, tc.table)); d != "" || want == "" {
			t.Errorf("table %s vs strata report %s %+v (-cli +page):\n%s", tc.table, tc.kind, tc.q.Mode, d)
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
	// Every query covered the window, with days and hours cut in the server's zone.
	for _, q := range src.Queries() {
		if e, ok := q.(db.EnergyQuery); ok && (!e.From.Equal(reporttest.DemoStart) || !e.To.Equal(reporttest.DemoEnd) || e.Location != time.UTC) {
			t.Errorf("query %+v, want the demo window in UTC", e)
		}
	}
}

func TestAPIMatchesCLIJSON(t *testing.T) {
	srv := newTestWeb(t, reporttest.Demo(), nil)
	_, _, body := get(t, srv.URL+"/api/energy?by=user&by=day&start=2026-11-20T22:00&end=2026-11-21T03:00")
	var api, cliDoc report.EnergyDoc
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	out := cli(t, reporttest.Demo(), "energy", demoQuery([]db.ReportDim{db.DimUser, db.DimDay}, report.OutputMode{JSON: true}))
	if err := json.Unmarshal([]byte(out), &cliDoc); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cliDoc, api); d != "" || len(api.Rows) != 3 {
		t.Errorf("api vs cli (-cli +api), %d rows:\n%s", len(api.Rows), d)
	}
}

func TestJobPageAndErrors(t *testing.T) {
	srv := newTestWeb(t, reporttest.Demo(), nil)
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
		{"GET", "/?start=yesterday-ish", 400}, {"GET", "/api/energy?by=team", 400}, {"GET", "/api/usage?by=node", 400},
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
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte("# admins\nalice:"+h+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHtpasswd(path); err == nil {
		t.Errorf("a group-readable auth file was accepted")
	}
	os.Chmod(path, 0o600)
	if os.Geteuid() == 0 { // issue 23.11: 0600 is not enough when another account owns it
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadHtpasswd(path); err == nil || !strings.Contains(err.Error(), path+" is owned by ") {
			t.Errorf("a 0600 auth file owned by nobody: err = %v, want a refusal naming its owner", err)
		}
		if err := os.Chown(path, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	users, err := ReadHtpasswd(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestWeb(t, reporttest.Demo(), users)
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

func TestStaleRollupsAreShown(t *testing.T) {
	stale := reporttest.Stale{Source: reporttest.Demo(),
		RolledUp: time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC), Activity: time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		src  report.Source
		want bool
	}{{reporttest.Demo(), false}, {stale, true}} {
		srv := newTestWeb(t, tc.src, nil)
		_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00")
		got := strings.Contains(page, `id="stale">Incomplete: the report rollups reach 2026-11-20 23:00 but GPUs were in use until 2026-11-21 03:00`)
		if got != tc.want {
			t.Errorf("%T: stale notice shown = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestOverviewKeepsFilters(t *testing.T) {
	src := reporttest.Demo()
	srv := newTestWeb(t, src, nil)
	_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00&user=alice&job=13")
	for _, s := range []string{`<input type="hidden" name="user" value="alice">`, "only user alice"} {
		if !strings.Contains(page, s) {
			t.Errorf("filtered page lacks %q", s)
		}
	}
	if len(src.Queries()) != 6 {
		t.Errorf("the overview made %d queries, want 6 (5 energy, 1 decisions)", len(src.Queries()))
	}
	for _, q := range src.Queries() {
		var f db.ReportFilter
		switch q := q.(type) {
		case db.EnergyQuery:
			f = q.ReportFilter
		case db.DecisionQuery:
			f = q.ReportFilter
		}
		if d := cmp.Diff([]string{"alice"}, f.Users); d != "" || len(f.Jobs) != 1 || f.Jobs[0] != 13 {
			t.Errorf("query %+v is not filtered on user alice and job 13", q)
		}
	}
}

func TestEmptyDatabasePages(t *testing.T) {
	srv := newTestWeb(t, &reporttest.Source{}, nil)
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
	src := reporttest.Demo()
	srv := newTestWeb(t, src, nil)
	_, _, page := get(t, srv.URL+"/?start=2026-11-15&end=2026-11-22")
	q := demoQuery([]db.ReportDim{db.DimDay}, report.OutputMode{Parsable: true, NoHeader: true, Format: "Day,Jobs,GPUHours,Energy,IdleEnergy"})
	q.Filter.From, q.Filter.To = time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	want := cli(t, src, "energy", q)
	if d := cmp.Diff(want, tableRows(t, page, "series")); d != "" || want == "" || !strings.Contains(page, `{"step":"day"`) {
		t.Errorf("per-day series (-cli +page):\n%s", d)
	}
}

// TestCSVExportKeepsTheFilters (issue 17): the page's JSON and CSV links
// carry its window and filters, and the CSV equals `strata report energy
// --csv` for the same query.
func TestCSVExportKeepsTheFilters(t *testing.T) {
	srv := newTestWeb(t, reporttest.Demo(), nil)
	_, _, page := get(t, srv.URL+"/?start=2026-11-20T22:00&end=2026-11-21T03:00&user=alice")
	for _, want := range []string{`href="/api/energy?end=2026-11-21T03%3A00&amp;start=2026-11-20T22%3A00&amp;user=alice">JSON`,
		`format=csv&amp;start=2026-11-20T22%3A00&amp;user=alice">CSV`} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks the export link %q", want)
		}
	}
	code, hdr, body := get(t, srv.URL+"/api/energy?by=user&start=2026-11-20T22:00&end=2026-11-21T03:00&format=csv")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") || !strings.Contains(hdr.Get("Content-Disposition"), "strata-energy.csv") {
		t.Fatalf("csv export: %d %v", code, hdr)
	}
	want := cli(t, reporttest.Demo(), "energy", demoQuery([]db.ReportDim{db.DimUser}, report.OutputMode{CSV: true}))
	if body != want || !strings.Contains(body, ",") {
		t.Errorf("web CSV differs from the CLI's:\nweb:\n%s\ncli:\n%s", body, want)
	}
}
