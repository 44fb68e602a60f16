package slurm

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

const openapiBody = `{"paths":{"/slurm/v0.0.42/jobs/":{},"/slurm/v0.0.42/job/{job_id}":{}}}`

// countingServer answers /openapi/v3 normally and every other request with
// status and body, counting those requests.
func countingServer(t *testing.T, status int, body string, n *atomic.Int32) http.Handler {
	t.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi/v3" {
			_, _ = w.Write([]byte(openapiBody))
			return
		}
		n.Add(1)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

func TestRetryPolicy(t *testing.T) {
	slurmErr := `{"errors":[{"error_number":2073,"error":"Job is no longer pending execution"}]}`
	tests := []struct {
		name     string
		status   int
		body     string
		write    bool
		attempts int32
		sentinel error
	}{
		{"read 503 retried", http.StatusServiceUnavailable, "", false, 3, nil},
		{"read 500 without slurm errors retried", http.StatusInternalServerError, "oops", false, 3, nil},
		{"read 500 with slurm errors final", http.StatusInternalServerError, slurmErr, false, 1, ErrNotPending},
		{"write 500 with slurm errors final", http.StatusInternalServerError, slurmErr, true, 1, ErrNotPending},
		{"write 500 without errors not retried", http.StatusInternalServerError, "", true, 1, nil},
		{"write 502 retried", http.StatusBadGateway, "", true, 3, nil},
		{"read 401 final", http.StatusUnauthorized, "", false, 1, ErrAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(countingServer(t, tc.status, tc.body, &n))
			defer srv.Close()
			c, err := New(context.Background(), Config{URL: srv.URL, User: "u", Token: "t", Retries: 2,
				RetryBackoff: time.Millisecond}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if tc.write {
				err = c.api.updateJob(context.Background(), 1, JobUpdate{Priority: 5})
			} else {
				_, err = c.api.job(context.Background(), 1)
			}
			if err == nil {
				t.Fatal("want an error")
			}
			if got := n.Load(); got != tc.attempts {
				t.Errorf("attempts = %d, want %d (err %v)", got, tc.attempts, err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("err = %v, want %v", err, tc.sentinel)
			}
		})
	}
}

func TestConnectionRefusedIsRetriedThenUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := httptest.NewUnstartedServer(countingServer(t, 200, `{"jobs":[]}`, new(atomic.Int32)))
	srv.Listener = ln
	srv.Start()
	c, err := New(context.Background(), Config{URL: "http://" + addr, User: "u", Token: "t", Retries: 2,
		RetryBackoff: time.Millisecond}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	srv.Close() // slurmrestd goes away after start-up
	_, _, err = c.api.jobs(context.Background())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err = %v, want ErrUnavailable after 3 attempts", err)
	}
	if err := c.api.updateJob(context.Background(), 1, JobUpdate{Priority: 1}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("write to a closed port: err = %v, want ErrUnavailable (refused dials are retried)", err)
	}
}

func TestUnixSocketAndHeaders(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "rest.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var user, token atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user.Store(r.Header.Get("X-SLURM-USER-NAME"))
		token.Store(r.Header.Get("X-SLURM-USER-TOKEN"))
		_, _ = w.Write([]byte(openapiBody))
	}))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	c, err := New(context.Background(), Config{Socket: sock}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New over a unix socket: %v", err)
	}
	if c.APIVersion() != "v0.0.42" || user.Load() != "" || token.Load() != "" {
		t.Errorf("version %q, user %q, token %q; want v0.0.42 and no auth headers", c.APIVersion(), user.Load(), token.Load())
	}
}

func TestTLSWithCAFileAndInsecure(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(openapiBody))
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	base := Config{URL: srv.URL, User: "u", Token: "t", Retries: -1}
	var unknownCA x509.UnknownAuthorityError
	if _, err := New(context.Background(), base, zerolog.Nop()); !errors.As(err, &unknownCA) {
		t.Errorf("unknown CA: err = %v, want x509.UnknownAuthorityError", err)
	}
	withCA := base
	withCA.CAFile = ca
	if _, err := New(context.Background(), withCA, zerolog.Nop()); err != nil {
		t.Errorf("with --slurm-ca-file: %v", err)
	}
	insecure := base
	insecure.InsecureSkipVerify = true
	if _, err := New(context.Background(), insecure, zerolog.Nop()); err != nil {
		t.Errorf("with insecure skip verify: %v", err)
	}
}

// slurmrestd never redirects: an answer that does (a proxy, a hijacked
// name) is refused, and the JWT never reaches the other host.
func TestRedirectsAreRefused(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-SLURM-USER-TOKEN") != "" {
			leaked.Add(1)
		}
		_, _ = w.Write([]byte(openapiBody))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := New(context.Background(), Config{URL: srv.URL, Token: "secret-jwt", User: "root"}, zerolog.Nop())
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("New through a redirecting server: %v, want a redirect error", err)
	}
	if n := leaked.Load(); n > 0 {
		t.Errorf("the JWT was sent to the redirect target %d times", n)
	}
}

// A JWT over plain http to another host is warned about; loopback and unix
// sockets are not.
func TestPlainHTTPTokenWarning(t *testing.T) {
	for _, tc := range []struct {
		url  string
		warn bool
	}{{"http://slurmctl.example:6820", true}, {"http://127.0.0.1:6820", false}, {"http://localhost:6820", false}, {"https://slurmctl.example", false}} {
		var buf strings.Builder
		warnCleartext(Config{URL: tc.url, Token: "jwt"}, zerolog.New(&buf))
		if got := strings.Contains(buf.String(), "clear text"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v (log %q)", tc.url, got, tc.warn, buf.String())
		}
	}
}

// TestSignalIsNeverRetriedOnceSent (issue 23.5): a DELETE (checkpoint
// signal) that may have reached slurmrestd is sent once, whatever the
// answer; one whose connection was refused (nothing sent) is retried.
func TestSignalIsNeverRetriedOnceSent(t *testing.T) {
	for _, status := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusInternalServerError} {
		var n atomic.Int32
		srv := httptest.NewServer(countingServer(t, status, "", &n))
		c, err := New(context.Background(), Config{URL: srv.URL, User: "u", Token: "t", Retries: 3,
			RetryBackoff: time.Millisecond}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.api.signalJob(context.Background(), 1, "USR1"); err == nil {
			t.Errorf("HTTP %d: want an error", status)
		}
		if got := n.Load(); got != 1 {
			t.Errorf("HTTP %d: %d DELETEs sent, want 1", status, got)
		}
		srv.Close()
		c.http.CloseIdleConnections() // a kept-alive connection cut after the request went out is ambiguous, not refused
		if err := c.api.signalJob(context.Background(), 1, "USR1"); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "after 4 attempts") {
			t.Errorf("signal to a closed port: err = %v, want ErrUnavailable after 4 attempts (a refused dial sent nothing)", err)
		}
	}
}
