package slurm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// recordedJobs is a client of the recorded stand-in of dir whose GET /jobs
// answers body (every other path: the recording).
func recordedJobs(t *testing.T, dir, body string) *slurm.Client {
	t.Helper()
	srv := slurmtest.NewServer(t, dir)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/jobs") && strings.HasPrefix(r.URL.Path, "/slurm/") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c, err := slurm.New(context.Background(), slurm.Config{URL: front.URL, User: "root", Token: "t",
		RetryBackoff: time.Millisecond, Timeout: 5 * time.Second}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// TestBadJobListsRefused (issue 34.4): a job list that cannot be Slurm's
// refuses the snapshot, naming what is wrong: one job ID twice (it was
// planned twice: two conflicting updates of one job in a cycle), a null
// answer or one without a "jobs" list, jobs whose fields are all null
// (each read as an empty queue before). An empty list is an empty queue.
func TestBadJobListsRefused(t *testing.T) {
	raw, err := os.ReadFile("testdata/jobs.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	jobs := doc["jobs"].([]any)
	with := func(list any) string {
		d := map[string]any{"meta": doc["meta"], "errors": []any{}, "warnings": []any{}}
		if list != nil {
			d["jobs"] = list
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	nullJob := map[string]any{}
	for k := range jobs[0].(map[string]any) {
		nullJob[k] = nil
	}
	tests := []struct {
		name, body, want string
	}{
		{"duplicate id", with(append(append([]any{}, jobs...), jobs[2])), "job 3 is listed twice"},
		{"null answer", "null", `no "jobs" list`},
		{"no jobs member", with(nil), `no "jobs" list`},
		{"null jobs member", `{"jobs":null,"errors":[],"warnings":[]}`, `no "jobs" list`},
		{"all fields null", with([]any{nullJob, nullJob}), "job 1 of 2 has no job_id"},
		{"no state", with([]any{map[string]any{"job_id": 7}}), "job 7 has no job_state"},
		{"empty queue", with([]any{}), ""},
	}
	for _, dir := range []string{"testdata", "testdata/slurm-26.05/v0.0.44"} {
		for _, tt := range tests {
			t.Run(dir+"/"+tt.name, func(t *testing.T) {
				s, err := recordedJobs(t, dir, tt.body).Snapshot(context.Background())
				if tt.want == "" {
					if err != nil || len(s.Jobs) != 0 {
						t.Fatalf("Snapshot = %v, %v; want an empty queue", s, err)
					}
					return
				}
				if !errors.Is(err, slurm.ErrBadAnswer) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Snapshot error = %v, want ErrBadAnswer saying %q", err, tt.want)
				}
			})
		}
	}
}
