package web

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
)

// cheapHash is a stored hash of password at the lowest iteration count the
// file accepts (tests hash quickly).
func cheapHash(t *testing.T, password string) string {
	t.Helper()
	sum, err := pbkdf2.Key(sha256.New, password, []byte("salt"), 10000, hashLen)
	if err != nil {
		t.Fatal(err)
	}
	return "pbkdf2-sha256$10000$" + base64.RawStdEncoding.EncodeToString([]byte("salt")) + "$" + base64.RawStdEncoding.EncodeToString(sum)
}

// clientFrom is an HTTP client whose connections leave from ip (any
// 127.0.0.0/8 address is this machine's loopback).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}}}
}

// reverseProxy serves a reverse proxy to target on 127.0.0.1 (it connects
// to target from 127.0.0.1 and appends the client's address to
// X-Forwarded-For, as Apache and nginx do); edit, when set, changes each
// request on its way (what the proxy's own sign-in does).
func reverseProxy(t *testing.T, target string, edit func(*http.Request)) string {
	t.Helper()
	srv := httptest.NewServer(proxyHandler(t, target, edit))
	t.Cleanup(srv.Close)
	return srv.URL
}

func proxyHandler(t *testing.T, target string, edit func(*http.Request)) http.Handler {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = clientFrom("127.0.0.1").Transport
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		if edit != nil {
			edit(r)
		}
	}
	return rp
}

// getFrom sends GET url from ip with headers (user:pass as basic auth when
// user is set) and returns the status and body.
func getFrom(t *testing.T, ip, url, user, pass string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := clientFrom(ip).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestClientsBehindAProxyHaveTheirOwnLimits (issue 34.3): behind a trusted
// reverse proxy each client is the address the proxy forwarded, so one
// client's failures (even with forged X-Forwarded-For hops) spend its own
// limit and not the others' (today every client was the proxy: three
// people were answered 429 after one client's 12 wrong passwords). A
// direct client's X-Forwarded-For is ignored, and logged once.
func TestClientsBehindAProxyHaveTheirOwnLimits(t *testing.T) {
	users := Htpasswd{}
	for _, u := range []string{"alice", "bob", "carol"} {
		users[u] = cheapHash(t, u+"-pass")
	}
	var logs bytes.Buffer
	h, err := New(Config{Source: reporttest.Demo(), Location: time.UTC, Log: zerolog.New(&logs), Users: users,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	strata := httptest.NewServer(h)
	t.Cleanup(strata.Close)
	proxy := reverseProxy(t, strata.URL, nil)

	var attacker []int
	for i := range loginBurst + 2 {
		code, _ := getFrom(t, "127.0.0.2", proxy+"/api/decisions", "alice", "wrong", map[string]string{"X-Forwarded-For": "198.51.100." + strconv.Itoa(i)})
		attacker = append(attacker, code)
	}
	want := make([]int, loginBurst+2)
	for i := range want {
		want[i] = http.StatusUnauthorized
	}
	want[loginBurst], want[loginBurst+1] = http.StatusTooManyRequests, http.StatusTooManyRequests
	if d := cmp.Diff(want, attacker); d != "" {
		t.Errorf("one client's wrong passwords through the proxy (-want +got):\n%s", d)
	}
	var people []int
	for i, u := range []string{"alice", "bob", "carol"} {
		code, _ := getFrom(t, "127.0.0."+strconv.Itoa(3+i), proxy+"/api/decisions", u, u+"-pass", nil)
		people = append(people, code)
	}
	if d := cmp.Diff([]int{200, 200, 200}, people); d != "" {
		t.Errorf("others' logins through the proxy meanwhile (-want +got):\n%s", d)
	}

	var direct []int
	for i := range loginBurst + 1 {
		code, _ := getFrom(t, "127.0.0.9", strata.URL+"/api/decisions", "bob", "wrong", map[string]string{"X-Forwarded-For": "203.0.113." + strconv.Itoa(i)})
		direct = append(direct, code)
	}
	if d := cmp.Diff(want[:loginBurst+1], direct); d != "" {
		t.Errorf("a direct client forging X-Forwarded-For (-want +got):\n%s", d)
	}
	if n := strings.Count(logs.String(), `"peer":"127.0.0.9"`); n != 1 {
		t.Errorf("%d log lines about 127.0.0.9's ignored header, want 1:\n%s", n, logs.String())
	}
}

// TestClientOf: the client is the rightmost forwarded address that is not
// a trusted proxy; an unreadable hop ends the walk; a peer that is not a
// proxy is the client whatever it forwards.
func TestClientOf(t *testing.T) {
	nets, err := ParseProxies([]string{"10.0.0.1", "192.168.0.0/16", " ", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	p := newProxies(nets, "X-Forwarded-User", zerolog.Nop())
	tests := []struct {
		peer, xff string
		want      string
		proxied   bool
	}{
		{"10.0.0.1:1", "", "10.0.0.1", true},
		{"10.0.0.1:1", "203.0.113.5", "203.0.113.5", true},
		{"10.0.0.1:1", "1.2.3.4, 203.0.113.5, 192.168.1.1", "203.0.113.5", true},
		{"10.0.0.1:1", "192.168.1.2, 192.168.1.1", "192.168.1.2", true},
		{"10.0.0.1:1", "203.0.113.5, junk", "10.0.0.1", true},
		{"[::1]:1", "2001:db8::7", "2001:db8::7", true},
		{"10.0.0.2:1", "203.0.113.5", "10.0.0.2", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.peer
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		got, proxied := p.client(r)
		if got != tt.want || proxied != tt.proxied {
			t.Errorf("peer %s X-Forwarded-For %q: client %s (proxied %v), want %s (%v)", tt.peer, tt.xff, got, proxied, tt.want, tt.proxied)
		}
	}
	if _, err := ParseProxies([]string{"10.0.0.0/33"}); err == nil || !strings.Contains(err.Error(), "trusted-proxies") {
		t.Errorf("a bad prefix: %v, want an error naming trusted-proxies", err)
	}
}

// TestHealthzIsOpen (issue 34.3): load balancers probe /healthz without
// credentials; it says "ok" and nothing else, while the pages still want
// a login.
func TestHealthzIsOpen(t *testing.T) {
	srv := newTestWeb(t, reporttest.Demo(), Htpasswd{"alice": cheapHash(t, "alice-pass")})
	for _, tc := range []struct {
		path string
		code int
		body string
	}{{"/healthz", 200, "ok\n"}, {"/", 401, ""}, {"/api/decisions", 401, ""}} {
		code, _, body := get(t, srv.URL+tc.path)
		if code != tc.code || (tc.body != "" && body != tc.body) {
			t.Errorf("GET %s without a login: %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
		}
	}
}
