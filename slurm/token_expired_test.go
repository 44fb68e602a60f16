package slurm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestRefusedTokenNamesRenewal (issue 35.6): a token slurmrestd refuses
// (HTTP 511 "Protocol authentication error" for an expired JWT, or 401),
// at discovery or on a read, gives an error that keeps slurmrestd's words
// and names the command that renews it; other refusals do not.
func TestRefusedTokenNamesRenewal(t *testing.T) {
	expired := `{"errors":[{"error_number":1007,"error":"Protocol authentication error","description":"Authentication failure"}]}`
	tests := []struct {
		name      string
		status    int
		body      string
		discovery bool // refused already at GET /openapi/v3
		renew     bool
	}{
		{"511 at discovery", 511, expired, true, true},
		{"511 on a read", 511, expired, false, true},
		{"401 on a read", http.StatusUnauthorized, "", false, true},
		{"403 is a permission, not a token", http.StatusForbidden, "", false, false},
		{"500 is not about the token", http.StatusInternalServerError, `{"errors":[{"error_number":2073,"error":"x"}]}`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			h := countingServer(t, tc.status, tc.body, &n)
			if tc.discovery {
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(tc.status)
					_, _ = w.Write([]byte(tc.body))
				})
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			ctx := context.Background()
			c, err := New(ctx, Config{URL: srv.URL, User: "u", Token: "t", Retries: 0, RetryBackoff: time.Millisecond}, zerolog.Nop())
			if err == nil {
				_, err = c.api.job(ctx, 1)
			}
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if got := strings.Contains(msg, "`scontrol token`"); got != tc.renew {
				t.Errorf("names scontrol token: %v, want %v: %s", got, tc.renew, msg)
			}
			if tc.renew && !errors.Is(err, ErrAuth) {
				t.Errorf("err %v: want ErrAuth", err)
			}
			if tc.body == expired && !strings.Contains(msg, "Protocol authentication error") {
				t.Errorf("slurmrestd's own words are lost: %s", msg)
			}
		})
	}
}
