package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Limits of password checks (PBKDF2, about 0.1 s of a core each). A check
// that fails costs its client and the user name it named one token each;
// a client without a token is answered 429 without hashing. A name without
// a token refuses no one: a client's check on it still runs, but when it
// fails it costs the client all its tokens (one guess per client per
// loginRefill while the name is under attack), so failures on a name from
// elsewhere never lock its user out. A successful check gives its tokens
// back, so that people who log in are never limited. The client is the
// peer address, or behind a trusted proxy the address it forwarded
// (proxy.go).
const (
	loginBurst  = 10              // failed checks in a row, per client and per user name
	loginRefill = 6 * time.Second // one more failed check per client and name after this
	loginKeys   = 10000           // clients or names remembered; past it, the rested ones are forgotten
	goodHeaders = 256             // verified Authorization headers remembered
)

// login checks basic-auth credentials. Verified headers are remembered (by
// a SHA-256 of the header) so that pages and static files do not pay for
// PBKDF2 again. Unknown user names are checked against a stored hash of the
// same cost as the users', so that the answer's time does not tell which
// names exist. Clients that failed lately hash on at most half the cores
// together, so that the pages stay served and a client without failures (a
// person logging in) does not queue behind them.
type login struct {
	users Htpasswd
	// unknown is the stored hash an unknown user name is checked against.
	unknown string
	// check is checkPassword (tests count its calls).
	check   func(stored, password string) bool
	now     func() time.Time
	clients *buckets
	names   *buckets
	hashing chan struct{}

	mu   sync.Mutex
	good map[[32]byte]bool
}

func newLogin(users Htpasswd, now func() time.Time) *login {
	return &login{users: users, unknown: decoyHash(users), check: checkPassword, now: now,
		clients: newBuckets(), names: newBuckets(),
		hashing: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)), good: map[[32]byte]bool{}}
}

// decoyHash is a stored hash of the iteration count most users' hashes
// have, with a random salt and sum no password yields.
func decoyHash(users Htpasswd) string {
	count := map[int]int{}
	iter := hashIterations
	for _, stored := range users {
		if n, _, _, err := parseHash(stored); err == nil {
			if count[n]++; count[n] > count[iter] {
				iter = n
			}
		}
	}
	b := make([]byte, 16+hashLen)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s$%d$%s$%s", hashScheme, iter,
		base64.RawStdEncoding.EncodeToString(b[:16]), base64.RawStdEncoding.EncodeToString(b[16:]))
}

// guard answers 401 to a request without valid credentials, 429 (with
// Retry-After) to one whose client has no check left, and passes the
// others to h; the client is the peer address.
func (l *login) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := l.authenticate(w, r, clientOf(r)); ok {
			h.ServeHTTP(w, r)
		}
	})
}

// authenticate checks r's basic-auth credentials for client: the user, or
// false after answering 401 or 429.
func (l *login) authenticate(w http.ResponseWriter, r *http.Request, client string) (string, bool) {
	user, pass, has := r.BasicAuth()
	key := sha256.Sum256([]byte(r.Header.Get("Authorization")))
	l.mu.Lock()
	good := l.good[key]
	l.mu.Unlock()
	if good {
		return user, true
	}
	if !has {
		unauthorized(w)
		return "", false
	}
	ok, wait := l.verify(client, user, pass)
	if wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		http.Error(w, "too many failed logins: try again later", http.StatusTooManyRequests)
		return "", false
	}
	if !ok {
		unauthorized(w)
		return "", false
	}
	l.mu.Lock()
	if len(l.good) >= goodHeaders {
		clear(l.good)
	}
	l.good[key] = true
	l.mu.Unlock()
	return user, true
}

// verify checks user's password for client: ok, or how long the client
// must wait (then nothing was hashed). The name's limit never refuses: a
// failed check on a name without tokens costs the client all of its own.
func (l *login) verify(client, user, pass string) (ok bool, wait time.Duration) {
	now := l.now()
	wait, rested := l.clients.take(client, now)
	if wait > 0 {
		return false, wait
	}
	nameWait, _ := l.names.take(user, now)
	stored, known := l.users[user]
	if !known {
		stored = l.unknown
	}
	if !rested { // a client that failed lately waits its turn; one that did not goes first
		l.hashing <- struct{}{}
		defer func() { <-l.hashing }()
	}
	match := l.check(stored, pass)
	switch ok = known && match; {
	case ok:
		l.clients.give(client)
		if nameWait == 0 {
			l.names.give(user)
		}
	case nameWait > 0: // a guess at a name under attack
		l.clients.drain(client)
	}
	return ok, 0
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Basic realm="strata", charset="UTF-8"`)
	http.Error(w, "authentication required", http.StatusUnauthorized)
}

// clientOf is the request's peer address without its port (no proxy is
// trusted).
func clientOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// buckets are token buckets by key: loginBurst tokens, one back every
// loginRefill.
type buckets struct {
	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newBuckets() *buckets { return &buckets{m: map[string]*bucket{}} }

// take spends one of key's tokens at now, or says how long until one is
// back; rested: key had every token (no recent failure).
func (b *buckets) take(key string, now time.Time) (wait time.Duration, rested bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.m[key]
	if k == nil {
		if len(b.m) >= loginKeys {
			b.forgetRested(now)
		}
		k = &bucket{tokens: loginBurst, at: now}
		b.m[key] = k
	}
	if now.After(k.at) {
		k.tokens = min(loginBurst, k.tokens+float64(now.Sub(k.at))/float64(loginRefill))
		k.at = now
	}
	if k.tokens < 1 {
		return time.Duration((1 - k.tokens) * float64(loginRefill)), false
	}
	rested = k.tokens >= loginBurst
	k.tokens--
	return 0, rested
}

// give returns a token taken for key (a check that succeeded, or that the
// other limit stopped).
func (b *buckets) give(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := b.m[key]; k != nil {
		k.tokens = min(loginBurst, k.tokens+1)
	}
}

// drain spends all of key's tokens (it exists: take made it).
func (b *buckets) drain(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := b.m[key]; k != nil {
		k.tokens = 0
	}
}

// forgetRested drops the keys whose buckets are full again at now, and,
// when too many stay (a flood of new names), all of them.
func (b *buckets) forgetRested(now time.Time) {
	for key, k := range b.m {
		if k.tokens+float64(now.Sub(k.at))/float64(loginRefill) >= loginBurst {
			delete(b.m, key)
		}
	}
	if len(b.m) >= loginKeys {
		clear(b.m)
	}
}
