package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

// TestSignInThroughTheSiteInBrowser (issue 35.4): headless Chromium opens
// the page through a reverse proxy that signs people in itself (basic auth
// at the proxy, as Apache's AuthType sets REMOTE_USER) and passes the
// identity in X-Forwarded-User: alice sees her jobs only, root (in
// --admins) everyone's, and an identity that is no Slurm user the page
// that says so.
func TestSignInThroughTheSiteInBrowser(t *testing.T) {
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
	h, err := New(Config{Source: st, Location: time.UTC, Log: zerolog.Nop(),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, UserHeader: "X-Forwarded-User", Admins: []string{"root"},
		Now: func() time.Time { return scopeT0.Add(2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	strata := httptest.NewServer(h)
	t.Cleanup(strata.Close)
	// The site's proxy signs in anyone whose password is "site" (its own
	// directory, here) and passes the identity on.
	rp := proxyHandler(t, strata.URL, func(r *http.Request) {
		r.Header.Del("X-Forwarded-User")
		if user, _, ok := r.BasicAuth(); ok {
			r.Header.Set("X-Forwarded-User", user)
		}
		r.Header.Del("Authorization")
	})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pass, ok := r.BasicAuth(); !ok || pass != "site" { // the site's sign-in
			w.Header().Set("WWW-Authenticate", `Basic realm="site"`)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	proxyURL := proxy.URL
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)

	tests := []struct {
		identity string
		status   int64
		users    []string
		message  string
	}{
		{"alice", 200, []string{"alice"}, ""},
		{"root", 200, []string{"alice", "bob", "carol", "dave"}, ""},
		{"eve@example.org", 403, nil, `You are signed in as "eve@example.org", which is not a Slurm user name`},
	}
	for _, tt := range tests {
		t.Run(tt.identity, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(actx) // a browser tab of its own: no credentials carried over
			defer cancel()
			tctx, cancelT := context.WithTimeout(ctx, 25*time.Second)
			defer cancelT()
			base, err := url.Parse(proxyURL)
			if err != nil {
				t.Fatal(err)
			}
			base.User = url.UserPassword(tt.identity, "site")
			resp, err := chromedp.Run(tctx, chromedp.NavigateResponse(base.String()+"/?start=2026-11-20T11:00&end=2026-11-20T14:00"))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d", resp.Status, tt.status)
			}
			if tt.message != "" {
				msg, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.getElementById('error').textContent`))
				if err != nil || !strings.HasPrefix(msg, tt.message) {
					t.Errorf("page says %q (%v), want %q…", msg, err, tt.message)
				}
				return
			}
			if err := chromedp.Do(tctx, chromedp.WaitReady(chromedp.CSS("#users"))); err != nil {
				t.Fatalf("wait for #users: %v", err)
			}
			cells, err := chromedp.Run(tctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#users tbody tr')).map(r => r.cells[0].textContent.trim()).join('\n')`))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range strings.Split(cells, "\n") {
				if u != "" {
					got = append(got, u)
				}
			}
			sort.Strings(got)
			if d := cmp.Diff(tt.users, got); d != "" {
				t.Errorf("overview users (-want +got):\n%s", d)
			}
		})
	}
}
