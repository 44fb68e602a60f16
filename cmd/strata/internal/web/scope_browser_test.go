package web

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// TestScopeInBrowser (issue 26.4, 26.5) logs in as alice, a login with the
// user role, in headless Chromium: the overview's users table holds her
// jobs only, her job's page renders the jobstats-like view (facts, advice
// line, per-GPU table), and bob's job answers 404 as an unknown one does.
func TestScopeInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Chromium, Postgres)")
	}
	chromium := os.Getenv("STRATA_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil && chromium == "" {
			chromium = p
		}
	}
	if chromium == "" {
		t.Fatalf("no chromium found: install Debian's chromium package (scripts/deps.sh does) or set STRATA_CHROMIUM")
	}
	st := scopeStore(t)
	users := writeUsers(t, map[string]string{"alice": "user", "root": "admin"})
	h, err := New(Config{Source: st, Location: time.UTC, Log: zerolog.Nop(), Users: users.Hashes, Roles: users.Roles,
		Now: func() time.Time { return scopeT0.Add(2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	base.User = url.UserPassword("alice", "correct horse")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	tctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()

	// open loads path and waits for the element wait; it returns the HTTP
	// status of the page.
	open := func(path, wait string) int64 {
		t.Helper()
		resp, err := chromedp.Run(tctx, chromedp.NavigateResponse(base.String()+path))
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		if err := chromedp.Do(tctx, chromedp.WaitReady(chromedp.CSS(wait))); err != nil {
			t.Fatalf("load %s: wait for %s: %v", path, wait, err)
		}
		return resp.Status
	}
	text := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(tctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}

	if status := open("/?start=2026-11-20T11:00&end=2026-11-20T14:00", "#users"); status != 200 {
		t.Fatalf("overview: status %d", status)
	}
	var got []string
	for _, u := range strings.Split(text(`Array.from(document.querySelectorAll('#users tbody tr')).map(r => r.cells[0].textContent.trim()).join('\n')`), "\n") {
		if u != "" {
			got = append(got, u)
		}
	}
	sort.Strings(got)
	if d := cmp.Diff([]string{"alice"}, got); d != "" {
		t.Errorf("alice's overview users (-want +got):\n%s", d)
	}

	if status := open("/job/1", "#facts"); status != 200 {
		t.Errorf("alice opening her job 1: status %d, want 200", status)
	}
	if advice := text(`(document.getElementById('advice') || {textContent: ''}).textContent`); !strings.HasPrefix(advice, "Advice:") || len(advice) < len("Advice: x") {
		t.Errorf("job 1: advice line %q, want one", advice)
	}
	if h1 := text(`document.querySelector('h1').textContent`); !strings.HasPrefix(h1, "Job 1") {
		t.Errorf("job 1: heading %q", h1)
	}
	for _, path := range []string{"/job/2", "/job/9"} {
		if status := open(path, "h1"); status != 404 {
			t.Errorf("alice opening %s: status %d, want 404", path, status)
		}
		if h1 := text(`document.querySelector('h1').textContent`); strings.HasPrefix(h1, "Job ") {
			t.Errorf("alice opening %s sees %q, want the 404 page", path, h1)
		}
	}
}
