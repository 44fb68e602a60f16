package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
)

// TestChartAxesAreISO (issue 17) draws the charts in headless Chromium
// (Debian's chromium, or STRATA_CHROMIUM) and reads the x-axis tick labels
// uPlot drew: ISO dates and a 24-hour clock in the server's zone, never
// US-style dates or am/pm; the legend's time too. Needs no database.
func TestChartAxesAreISO(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Chromium)")
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
	srv := newTestWeb(t, reporttest.Demo(), nil)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900), chromedp.Env("TZ=America/New_York"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	hhmm := regexp.MustCompile(`^\d{2}:\d{2}(\n\d{4}-\d{2}-\d{2})?$`)
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, tc := range []struct {
		path, chart string
		label       *regexp.Regexp
		want        []string // labels that must be among the ticks (UTC, the server's zone)
		legend      *regexp.Regexp
	}{
		{"/?start=2026-11-20T22:00&end=2026-11-21T03:00", "chart-overview", hhmm,
			[]string{"00:00\n2026-11-21"}, regexp.MustCompile(`^2026-11-2\d \d{2}:\d{2}$`)},
		{"/by/day?start=2026-11-15&end=2026-11-22", "chart-overview", date,
			[]string{"2026-11-20", "2026-11-21"}, regexp.MustCompile(`^2026-11-\d{2}$`)},
		{"/job/13", "chart-job", hhmm, nil, regexp.MustCompile(`^2026-11-21 \d{2}:\d{2}$`)},
	} {
		if err := chromedp.Do(tctx, chromedp.Navigate(srv.URL+tc.path), chromedp.WaitVisible(chromedp.CSS("#"+tc.chart+" canvas"))); err != nil {
			t.Fatalf("load %s: %v", tc.path, err)
		}
		if dir := os.Getenv("STRATA_ARTIFACTS"); dir != "" {
			if png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100)); err == nil {
				name := strings.NewReplacer("/", "_", "?", "_", "&", "_", ":", "").Replace(tc.path)
				_ = os.WriteFile(filepath.Join(dir, "strata-serve"+name+".png"), png, 0o644)
			}
		}
		el := `document.getElementById('` + tc.chart + `').uplot`
		ticks, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](el+`.axes[0]._values.map(String)`))
		if err != nil || len(ticks) == 0 {
			t.Fatalf("%s: read the x-axis labels: %v %q", tc.path, err, ticks)
		}
		for _, l := range ticks {
			if !tc.label.MatchString(l) || strings.ContainsAny(l, "/apm") {
				t.Errorf("%s: x-axis label %q is not ISO / 24 h (all: %q)", tc.path, l, ticks)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(strings.Join(ticks, "|")+"|", w+"|") {
				t.Errorf("%s: x-axis labels %q lack %q (the server's zone, UTC)", tc.path, ticks, w)
			}
		}
		legend, err := chromedp.Run(tctx, chromedp.Evaluate[string](`(function(u){u.setCursor({left: u.bbox.width/devicePixelRatio/2, top: 10});
			return document.querySelector('#`+tc.chart+` .u-legend .u-series:first-child .u-value').textContent})(`+el+`)`))
		if err != nil || !tc.legend.MatchString(legend) {
			t.Errorf("%s: legend time %q (%v), want %v", tc.path, legend, err, tc.legend)
		}
	}
}
