package web

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countingLogin is a login whose password checks are counted (with the
// iteration count of the stored hash each ran against) instead of hashed:
// the stored sum of every user is the user's password.
type countingLogin struct {
	*login
	mu     sync.Mutex
	iters  []int
	clock  time.Time
	handle http.Handler
}

func newCountingLogin(t *testing.T) *countingLogin {
	t.Helper()
	users := Htpasswd{}
	for _, u := range []string{"alice", "bob"} {
		users[u] = "pbkdf2-sha256$210000$c2FsdHNhbHRzYWx0c2FsdA$" + base64.RawStdEncoding.EncodeToString([]byte(u))
	}
	cl := &countingLogin{clock: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	cl.login = newLogin(users, func() time.Time { return cl.clock })
	cl.check = func(stored, pass string) bool {
		iter, _, sum, err := parseHash(stored)
		if err != nil {
			t.Errorf("checked against %q: %v", stored, err)
		}
		cl.mu.Lock()
		cl.iters = append(cl.iters, iter)
		cl.mu.Unlock()
		return string(sum) == pass
	}
	cl.handle = cl.guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	return cl
}

// do sends one request from client (an IP) as user:pass and returns the
// status and the checks run so far.
func (cl *countingLogin) do(client, user, pass string) (int, int) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = client + ":40000"
	r.SetBasicAuth(user, pass)
	w := httptest.NewRecorder()
	cl.handle.ServeHTTP(w, r)
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return w.Code, len(cl.iters)
}

// TestLoginRateLimitedWithoutHashing (issue 23.10): a client, or a user
// name, past loginBurst failed logins is answered 429 with Retry-After and
// no password check; a token comes back after loginRefill; other clients
// log in meanwhile, and the name's failures do not keep its user out of
// another client.
func TestLoginRateLimitedWithoutHashing(t *testing.T) {
	cl := newCountingLogin(t)
	for i := range loginBurst {
		if code, n := cl.do("10.0.0.1", "alice", "wrong"); code != 401 || n != i+1 {
			t.Fatalf("failed login %d: %d after %d checks, want 401 after %d", i+1, code, n, i+1)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:1"
	r.SetBasicAuth("bob", "bob")
	w := httptest.NewRecorder()
	cl.handle.ServeHTTP(w, r)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != strconv.Itoa(int(loginRefill/time.Second)) {
		t.Errorf("client past its limit: %d Retry-After %q, want 429 after %v", w.Code, w.Header().Get("Retry-After"), loginRefill)
	}
	if _, n := cl.do("10.0.0.1", "bob", "bob"); n != loginBurst {
		t.Errorf("%d checks: a rate-limited request was hashed", n-loginBurst)
	}
	// Another client logs in; alice's name is spent now (10 failures).
	if code, _ := cl.do("10.0.0.2", "bob", "bob"); code != 200 {
		t.Errorf("another client's valid login: %d, want 200", code)
	}
	cl.clock = cl.clock.Add(loginRefill)
	if code, _ := cl.do("10.0.0.1", "bob", "bob"); code != 200 {
		t.Errorf("after %v the client may try once more: %d, want 200", loginRefill, code)
	}
	if code, _ := cl.do("10.0.0.3", "alice", "alice"); code != 200 {
		t.Errorf("alice from a new client while her name is spent: %d, want 200", code)
	}
}

// TestNameFailuresLockNoOneOut (issue 34.3): failures on a user's name
// from other addresses, however many, never refuse her login from a client
// of her own (today's code answered 429 to a client she had not used
// before); a wrong guess on a name past its limit costs the guessing client
// its whole burst, so spreading guesses over addresses buys one guess per
// address per loginRefill.
func TestNameFailuresLockNoOneOut(t *testing.T) {
	cl := newCountingLogin(t)
	var got []int
	for i := range 10 { // once a second, from elsewhere, while she logs in from new clients
		for j := range 3 {
			cl.do(fmt.Sprintf("10.1.%d.%d", i, j), "bob", "guess")
		}
		code, _ := cl.do(fmt.Sprintf("10.2.0.%d", i), "bob", "bob")
		got = append(got, code)
		clear(cl.good)
		cl.clock = cl.clock.Add(time.Second)
	}
	if diff := cmp.Diff([]int{200, 200, 200, 200, 200, 200, 200, 200, 200, 200}, got); diff != "" {
		t.Errorf("bob's logins while his name is attacked (-want +got):\n%s", diff)
	}
	// The name is spent: one more wrong guess from a fresh client is
	// checked, then that client waits.
	if code, _ := cl.do("10.3.0.1", "bob", "guess"); code != 401 {
		t.Errorf("a guess on the spent name from a fresh client: %d, want 401", code)
	}
	if code, _ := cl.do("10.3.0.1", "bob", "guess2"); code != 429 {
		t.Errorf("a second guess on the spent name from that client: %d, want 429", code)
	}
	if code, _ := cl.do("10.3.0.1", "alice", "alice"); code != 429 {
		t.Errorf("that client's next request: %d, want 429 (it spent its burst)", code)
	}
}

// TestUnknownUserRunsTheSameHash (issue 23.10): a user name that is not in
// the file is checked like a known one, against a hash of the same
// iteration count, so that the answer's time does not tell names apart.
func TestUnknownUserRunsTheSameHash(t *testing.T) {
	cl := newCountingLogin(t)
	cl.do("10.0.0.1", "alice", "wrong")
	cl.do("10.0.0.2", "mallory", "wrong")
	cl.do("10.0.0.3", "", "x")
	if diff := cmp.Diff([]int{210000, 210000, 210000}, cl.iters); diff != "" {
		t.Errorf("iterations of each check (-want +got):\n%s", diff)
	}
	_, _, decoy, _ := parseHash(cl.unknown)
	if code, _ := cl.do("10.0.0.2", "mallory", string(decoy)); code != 401 {
		t.Errorf("an unknown user with the decoy's sum: %d, want 401", code)
	}
}

// TestDecoyHashCostsWhatUsersCost: the decoy takes the iteration count
// most users' hashes have, and it parses.
func TestDecoyHashCostsWhatUsersCost(t *testing.T) {
	users := Htpasswd{
		"a": "pbkdf2-sha256$300000$c2FsdA$c3Vt",
		"b": "pbkdf2-sha256$300000$c2FsdA$c3Vt",
		"c": "pbkdf2-sha256$210000$c2FsdA$c3Vt",
	}
	iter, salt, sum, err := parseHash(decoyHash(users))
	if err != nil || iter != 300000 || len(salt) != 16 || len(sum) != hashLen {
		t.Errorf("decoy: %d iterations, %d-byte salt, %d-byte sum, %v; want 300000, 16, %d", iter, len(salt), len(sum), err, hashLen)
	}
}

// TestBasicAuthLimitsFailedLogins (issue 23.10) goes through basicAuth as
// the server builds it, with real (cheap) hashes: after loginBurst wrong
// passwords from one client the next request is answered 429.
func TestBasicAuthLimitsFailedLogins(t *testing.T) {
	sum, err := pbkdf2.Key(sha256.New, "right", []byte("salt"), 10000, hashLen)
	if err != nil {
		t.Fatal(err)
	}
	stored := "pbkdf2-sha256$10000$" + base64.RawStdEncoding.EncodeToString([]byte("salt")) + "$" + base64.RawStdEncoding.EncodeToString(sum)
	h := basicAuth(Htpasswd{"alice": stored}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	var codes []int
	for i := range loginBurst + 1 {
		r := httptest.NewRequest("GET", "/", nil)
		r.SetBasicAuth("alice", "wrong"+strconv.Itoa(i))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		codes = append(codes, w.Code)
	}
	want := make([]int, loginBurst+1)
	for i := range want {
		want[i] = http.StatusUnauthorized
	}
	want[loginBurst] = http.StatusTooManyRequests
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("answers to %d wrong passwords (-want +got):\n%s", loginBurst+1, diff)
	}
}
