package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkValidLoginUnderAttack measures a valid login (a full PBKDF2
// check: each op logs in as another user, so no verified header is reused)
// alone and while 60 goroutines send wrong passwords from one client as
// fast as their answers come, 1 ms apart (issue 23.10). ns/op is the valid
// login's time; max-ms the slowest one; bad-logins the attackers' answers.
func BenchmarkValidLoginUnderAttack(b *testing.B) {
	for _, n := range []int{0, 60} {
		b.Run(fmt.Sprintf("attackers=%d", n), func(b *testing.B) { benchLogin(b, n) })
	}
}

func benchLogin(b *testing.B, attackers int) {
	stored, err := HashPassword("correct horse battery")
	if err != nil {
		b.Fatal(err)
	}
	users := Htpasswd{"alice": stored}
	for i := range 4096 {
		users[fmt.Sprintf("u%d", i)] = stored
	}
	h := basicAuth(users, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	serve := func(client, user, pass string) int {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = client + ":5000"
		r.SetBasicAuth(user, pass)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var attempts atomic.Int64
	for g := range attackers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				serve("192.0.2.66", "alice", fmt.Sprintf("guess-%d-%d", g, i))
				attempts.Add(1)
				time.Sleep(time.Millisecond)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // the attack is under way
	var worst time.Duration
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if code := serve("198.51.100.7", fmt.Sprintf("u%d", i%4096), "correct horse battery"); code != http.StatusOK {
			b.Fatalf("valid login: %d", code)
		}
		worst = max(worst, time.Since(t0))
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(attempts.Load()), "bad-logins")
}
