package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// TestSignInThroughTheSite (issue 35.4): behind a reverse proxy that signs
// people in and passes the identity in X-Forwarded-User (as Apache's
// REMOTE_USER is passed for Open OnDemand and XDMoD), each identity sees
// its scope: a user her jobs, an identity the file names a coordinator its
// accounts', an admin from the list everything. An identity that is no
// Slurm user sees nothing, with a page that says so. The header from an
// address that is not a trusted proxy is ignored (logged once), and the
// basic-auth file still signs in those who come directly.
func TestSignInThroughTheSite(t *testing.T) {
	st := scopeStore(t)
	users := writeUsers(t, map[string]string{"dana": "user"})
	path := filepath.Join(t.TempDir(), "roles")
	if err := os.WriteFile(path, []byte("carol:!:coordinator=nlp\nasmith@example.org:!:user:alice\ndana:"+users.Hashes["dana"]+":user\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	users, err := ReadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h, err := New(Config{Source: st, Location: time.UTC, Log: zerolog.New(&logs), Users: users.Hashes, Roles: users.Roles,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, UserHeader: "X-Forwarded-User", Admins: []string{"root"},
		Now: func() time.Time { return scopeT0.Add(2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	strata := httptest.NewServer(h)
	t.Cleanup(strata.Close)
	// The site's proxy: it signs the person in (here: trusts X-Test-Login)
	// and replaces whatever X-Forwarded-User the client sent.
	proxy := reverseProxy(t, strata.URL, func(r *http.Request) {
		r.Header.Del("X-Forwarded-User")
		if id := r.Header.Get("X-Test-Login"); id != "" {
			r.Header.Set("X-Forwarded-User", id)
		}
	})
	win := "/?start=2026-11-20T11:00&end=2026-11-20T14:00"
	tests := []struct {
		login string
		code  int
		users []string // the overview's users table
	}{
		{"alice", 200, []string{"alice"}},
		{"carol", 200, []string{"bob", "carol", "dave"}},
		{"root", 200, []string{"alice", "bob", "carol", "dave"}},
		{"asmith@example.org", 200, []string{"alice"}},
		{"eve", 200, nil},
		{"eve@example.org", 403, nil},
	}
	for _, tt := range tests {
		code, page := getFrom(t, "127.0.0.2", proxy+win, "", "", map[string]string{"X-Test-Login": tt.login})
		if code != tt.code {
			t.Errorf("%s through the proxy: %d, want %d: %s", tt.login, code, tt.code, page)
			continue
		}
		if code != 200 {
			if !strings.Contains(page, "not a Slurm user name") || !strings.Contains(page, "eve@example.org") {
				t.Errorf("%s: the page does not say why: %s", tt.login, page)
			}
			continue
		}
		if d := cmp.Diff(tt.users, firstCells(t, page, "users")); d != "" {
			t.Errorf("%s's overview users (-want +got):\n%s", tt.login, d)
		}
	}
	if code, _ := getFrom(t, "127.0.0.2", proxy+"/job/2", "", "", map[string]string{"X-Test-Login": "alice"}); code != 404 {
		t.Errorf("alice opening bob's job 2 through the proxy: %d, want 404", code)
	}

	for _, tc := range []struct {
		name, url, user, pass string
		headers               map[string]string
		code                  int
	}{
		{"proxy, no identity", proxy + win, "", "", nil, 401},
		{"direct, forged identity", strata.URL + win, "", "", map[string]string{"X-Forwarded-User": "root"}, 401},
		{"direct, forged identity again", strata.URL + "/job/2", "", "", map[string]string{"X-Forwarded-User": "root"}, 401},
		{"direct, forged identity, dana's password", strata.URL + "/job/2", "dana", "correct horse", map[string]string{"X-Forwarded-User": "root"}, 404},
		{"direct, password login", strata.URL + win, "dana", "correct horse", nil, 200},
		{"direct, a line without password", strata.URL + win, "carol", "!", nil, 401},
		{"direct, health", strata.URL + "/healthz", "", "", nil, 200},
	} {
		if code, body := getFrom(t, "127.0.0.3", tc.url, tc.user, tc.pass, tc.headers); code != tc.code {
			t.Errorf("%s: %d, want %d: %s", tc.name, code, tc.code, body)
		}
	}
	if n := strings.Count(logs.String(), `"peer":"127.0.0.3"`); n != 1 || !strings.Contains(logs.String(), "X-Forwarded-User") {
		t.Errorf("%d log lines about 127.0.0.3's ignored identity header, want 1 naming it:\n%s", n, logs.String())
	}
}
