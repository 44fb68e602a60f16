package slurm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// endlessJobs is a /jobs answer that never ends: a job list whose padding
// goes on as long as it is read, without a Content-Length.
type endlessJobs struct{ sent atomic.Int64 }

func (e *endlessJobs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/openapi/v3" {
		_, _ = w.Write([]byte(openapiBody))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	n, _ := io.WriteString(w, `{"jobs":[{"job_id":1,"comment":"`)
	e.sent.Add(int64(n))
	chunk := []byte(strings.Repeat("x", 64<<10))
	for r.Context().Err() == nil && e.sent.Load() < 64<<20 {
		n, err := w.Write(chunk)
		e.sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// TestAnswerSizeLimit (issue 23.7): an answer larger than
// MaxResponseSize fails with ErrResponseTooLarge naming the limit and how
// to raise it, counted while it streams (an endless answer without a
// Content-Length stops near the limit) or refused from its Content-Length
// before any of it is read; it is not retried.
func TestAnswerSizeLimit(t *testing.T) {
	t.Run("counted while streaming", func(t *testing.T) {
		var srv endlessJobs
		hs := httptest.NewServer(&srv)
		defer hs.Close()
		c := limitClient(t, hs.URL, "2M")
		_, _, err := c.api.jobs(context.Background())
		checkTooLarge(t, err, "more than the limit of 2M")
		t.Log(err)
		hs.CloseClientConnections()
		// The client read at most the limit and what sat in buffers; the
		// server may have written a little more into the socket.
		if sent := srv.sent.Load(); sent > 16<<20 {
			t.Errorf("server sent %d bytes for a 2M limit: the body was read past the limit", sent)
		}
	})
	t.Run("declared by Content-Length", func(t *testing.T) {
		var gets atomic.Int32
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/openapi/v3" {
				_, _ = w.Write([]byte(openapiBody))
				return
			}
			gets.Add(1)
			body := `{"jobs":[],"comment":"` + strings.Repeat("x", 3<<20) + `"}`
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = io.WriteString(w, body)
		}))
		defer hs.Close()
		c := limitClient(t, hs.URL, "2M")
		_, err := c.api.nodes(context.Background())
		checkTooLarge(t, err, "over the limit of 2M")
		if n := gets.Load(); n != 1 {
			t.Errorf("%d requests: a too-large answer must not be retried", n)
		}
	})
	t.Run("within the limit", func(t *testing.T) {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/openapi/v3" {
				_, _ = w.Write([]byte(openapiBody))
				return
			}
			_, _ = io.WriteString(w, `{"jobs":[{"job_id":7,"job_state":["PENDING"],"comment":"`+strings.Repeat("y", 1<<20)+`"}]}`)
		}))
		defer hs.Close()
		jobs, _, err := limitClient(t, hs.URL, "2M").api.jobs(context.Background())
		if err != nil || len(jobs) != 1 || jobs[0].ID != 7 {
			t.Fatalf("a 1 MiB answer under a 2M limit: %v, %d jobs", err, len(jobs))
		}
	})
}

func limitClient(t *testing.T, url, limit string) *Client {
	t.Helper()
	c, err := New(context.Background(), Config{URL: url, User: "u", Token: "t", Retries: 2,
		RetryBackoff: time.Millisecond, Timeout: 20 * time.Second, MaxResponseSize: limit}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkTooLarge(t *testing.T, err error, want string) {
	t.Helper()
	var tl *ResponseTooLargeError
	if !errors.Is(err, ErrResponseTooLarge) || !errors.As(err, &tl) {
		t.Fatalf("err = %v, want ErrResponseTooLarge", err)
	}
	for _, w := range []string{want, "--slurm-max-response-size", "slurm-max-response-size", "raise it"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestMaxResponseSizeValidated(t *testing.T) {
	for _, tc := range []struct {
		size string
		ok   bool
	}{{"", true}, {"1G", true}, {"2GiB", true}, {"512k", false}, {"lots", false}, {"0", false}} {
		err := Config{URL: "http://h:1", User: "u", Token: "t", MaxResponseSize: tc.size}.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("MaxResponseSize %q: err = %v, want ok=%v", tc.size, err, tc.ok)
		}
	}
}
