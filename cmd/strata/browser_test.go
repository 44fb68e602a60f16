package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// The demo recording runs 2026-11-20 12:00–12:06 UTC.
const browserWindow = "-S 2026-11-20T11:00 -E 2026-11-20T13:00 --timezone UTC"

// chromiumPath finds Debian's chromium (STRATA_CHROMIUM overrides).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STRATA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("no chromium found: install Debian's chromium package (scripts/deps.sh does) or set STRATA_CHROMIUM")
	return ""
}

// browserDemoDB fills a fresh database end to end through the CLI: migrate,
// collect the demo replay, refresh the report rollups; then it stores two
// plan cycles, as `strata run` would, so the decision tables have rows.
func browserDemoDB(t *testing.T) string {
	t.Helper()
	url := dbtest.URL(t)
	t.Setenv("STRATA_DATABASE_URL", url)
	for _, args := range [][]string{
		{"db", "migrate"},
		{"collect", "--source", "replay", "--replay-file", stalledRecording(t),
			"--schedule", "../../dcgm/testdata/schedule.json", "--spool-file", t.TempDir() + "/spool.jsonl", "--metrics-listen", ""},
		{"report", "refresh", "-S", "2026-11-20T11:00:00Z", "-E", "2026-11-20T13:00:00Z"},
	} {
		if out, err := runStrataDB(t, args...); err != nil {
			t.Fatalf("strata %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	st := dbtest.Open(t, url, false)
	t0 := time.Date(2026, 11, 20, 11, 59, 0, 0, time.UTC)
	for i, d := range [][]db.CycleDecision{
		{{Decision: planner.Decision{JobID: 101, Action: planner.ActionUpdate, Workers: 2, Reasons: []planner.Reason{"smd_optimal"}}, Outcome: "dry-run"},
			{Decision: planner.Decision{JobID: 102, Action: planner.ActionKeep, Reasons: []planner.Reason{"no_hint"}}, Outcome: decide.Kept}},
		{{Decision: planner.Decision{JobID: 104, Action: planner.ActionUpdate, Workers: 3, Reasons: []planner.Reason{"smd_optimal"}}, Outcome: "dry-run"}},
	} {
		c := &db.Cycle{Cluster: "test", SnapshotID: fmt.Sprint("snap", i), Policy: "smd",
			StartedAt: t0.Add(time.Duration(i) * 3 * time.Minute), Decisions: d}
		if err := st.SaveCycle(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return url
}

// stalledRecording is the demo recording in which bob's job 102 (gpu-a
// minors 2 and 3) stalls on input from 12:03 on: its GPUs stay allocated at
// 2 % utilization, so the reports have idle-GPU energy to show
// (dcgmtest.Stalled; the examples of docs/reports.md come from it).
func stalledRecording(t *testing.T) string {
	t.Helper()
	return "../../dcgm/testdata/recording-stalled.jsonl"
}

// startServe runs `strata serve` on a free loopback port until the test ends.
func startServe(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var out strings.Builder
		err := newApp(&out, &out).RunContext(ctx, []string{"strata", "--log-level", "warn", "serve", "--listen", addr, "--timezone", "UTC", "--metrics-listen", ""})
		if err != nil {
			t.Errorf("strata serve: %v\n%s", err, out.String())
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	base := "http://" + addr
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("strata serve did not answer on %s", addr)
	return ""
}

// browser starts headless Chromium and collects console errors, uncaught
// exceptions and error log entries (CSP violations, failed loads).
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	// The first action starts the browser; it must not run under a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s: %s (%s)", m.Type, m.Text, m.URL))
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// tableJS returns the body rows of a table as "a|b|c" lines, like -P -n.
func tableJS(id string) string {
	return `Array.from(document.querySelectorAll('#` + id + ` tbody tr')).map(r =>
		Array.from(r.cells).map(c => c.textContent.trim()).join('|') + '\n').join('')`
}

func artifactDir(t *testing.T) string {
	if d := os.Getenv("STRATA_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return t.TempDir()
}

// A real headless Chromium loads the overview and a job page served from a
// database filled by the replay source: the numbers shown equal the CLI
// report's, the charts render, and nothing logs an error.
func TestBrowserPagesMatchCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres, Chromium)")
	}
	browserDemoDB(t)
	base := startServe(t)
	ctx, consoleErrors := browser(t)
	figures := "Jobs,GPUHours,Energy,EnergyRaw,MeanUtil,IdleEnergy,IdlePct"
	cli := func(args string) string {
		out, err := runStrataDB(t, strings.Fields(args+" -P -n "+browserWindow)...)
		if err != nil {
			t.Fatalf("strata %s: %v\n%s", args, err, out)
		}
		return out
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		if err := chromedp.Do(tctx, steps...); err != nil {
			t.Fatalf("browser: %s: %v", what, err)
		}
	}
	eval := func(js string) string {
		v, err := chromedp.Run(tctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("browser: evaluate %.40q: %v", js, err)
		}
		return v
	}
	shot := func() []byte {
		png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("browser: screenshot: %v", err)
		}
		return png
	}
	do("load overview", chromedp.Navigate(base+"/?start=2026-11-20T11:00&end=2026-11-20T13:00"),
		chromedp.WaitVisible(chromedp.CSS("#users")), chromedp.WaitVisible(chromedp.CSS("#chart-overview canvas")))
	users, accounts, decisions := eval(tableJS("users")), eval(tableJS("accounts")), eval(tableJS("decisions"))
	idle := eval(tableJS("idle"))
	total := eval(`document.getElementById('total-energy').textContent`)
	charts := eval(`String(document.querySelectorAll('.chart canvas').length)`)
	overviewPNG := shot()
	do("load job page", chromedp.Navigate(base+"/job/104"), chromedp.WaitVisible(chromedp.CSS("#chart-job canvas")))
	jobEnergy := eval(tableJS("energy"))
	jobPNG := shot()
	for _, c := range []struct{ name, page, cli string }{
		{"users", users, cli("report energy --by user --format=User," + figures)},
		{"accounts", accounts, cli("report energy --by account --format=Account," + figures)},
		{"decisions", decisions, cli("report decisions")},
		{"idle", idle, cli("report energy --by job -j 102 --format=Job,JobName,User,GPUHours,Energy,IdleGPUHours,IdleEnergy,IdlePct")},
		{"total", total, cli("report energy --by= --format=Energy")},
		{"job 104", jobEnergy, cli("report energy --by job -j 104 --format=GPUHours,Energy,EnergyRaw,MeanUtil,IdleGPUHours,IdleEnergy,IdlePct")},
	} {
		want := strings.TrimSpace(c.cli)
		if c.name == "total" {
			want += " kWh"
		}
		if d := cmp.Diff(want, strings.TrimSpace(c.page)); d != "" || want == "" {
			t.Errorf("%s: page differs from the CLI (-cli +page):\n%s", c.name, d)
		}
	}
	if strings.Count(users, "\n") != 3 || charts != "1" {
		t.Errorf("overview: %d user rows (want alice, bob, carol), %s charts (want 1)", strings.Count(users, "\n"), charts)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("browser reported errors:\n%s", strings.Join(errs, "\n"))
	}
	// Self-check: the listener does see an error when there is one.
	eval(`console.error("strata-selfcheck"); "ok"`)
	seen := false
	for i := 0; i < 40 && !seen; i++ {
		seen = strings.Contains(strings.Join(consoleErrors(), "\n"), "strata-selfcheck")
		time.Sleep(50 * time.Millisecond)
	}
	if !seen {
		t.Errorf("console listener missed a console.error: the no-error check above proves nothing")
	}
	if !strings.Contains(users, "bob|1|") || strings.Contains(idle, "|0.000|0.0") {
		t.Errorf("the stalled job shows no idle energy:\n%s%s", users, idle)
	}
	dir := artifactDir(t)
	for name, png := range map[string][]byte{"strata-serve-overview.png": overviewPNG, "strata-serve-job.png": jobPNG} {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
}
