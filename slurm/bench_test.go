package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// scaledJobs builds a GET /jobs answer with n jobs by repeating the jobs
// captured from the real slurmrestd (testdata/jobs.json) with fresh ids,
// keeping its pretty-printed layout (what slurmrestd sends).
func scaledJobs(tb testing.TB, n int) []byte {
	tb.Helper()
	raw, err := os.ReadFile("testdata/jobs.json")
	if err != nil {
		tb.Fatal(err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw, &env); err != nil {
		tb.Fatal(err)
	}
	var jobs []map[string]json.RawMessage
	if err := json.Unmarshal(env["jobs"], &jobs); err != nil {
		tb.Fatal(err)
	}
	out := make([]map[string]json.RawMessage, n)
	for i := range out {
		j := make(map[string]json.RawMessage, len(jobs[0]))
		for k, v := range jobs[i%len(jobs)] {
			j[k] = v
		}
		j["job_id"] = json.RawMessage(strconv.Itoa(i + 1))
		out[i] = j
	}
	b, err := json.Marshal(out)
	if err != nil {
		tb.Fatal(err)
	}
	env["jobs"] = b
	body, _ := json.Marshal(env)
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, body, "", "  ")
	return pretty.Bytes()
}

// benchServer serves the recorded nodes/partitions and the given jobs body.
func benchServer(tb testing.TB, jobs []byte) *Client {
	tb.Helper()
	files := map[string][]byte{"jobs": jobs}
	for _, n := range []string{"nodes", "partitions", "openapi"} {
		b, err := os.ReadFile("testdata/" + n + ".json")
		if err != nil {
			tb.Fatal(err)
		}
		files[n] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.Trim(r.URL.Path, "/")
		_, _ = w.Write(files[p[strings.LastIndex(p, "/")+1:]])
	}))
	tb.Cleanup(srv.Close)
	files["v3"] = files["openapi"]
	c, err := New(context.Background(), Config{URL: srv.URL, User: "root", Token: "t"}, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestScaledJobsDecode(t *testing.T) {
	c := benchServer(t, scaledJobs(t, 500))
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 6 captured jobs, 4 of them (ids 1, 3, 4, 5) pending or running:
	// 500 = 83×6 + 2 jobs, and of the last two only the first counts.
	if got, want := len(s.Jobs), 83*4+1; got != want {
		t.Errorf("jobs in snapshot = %d, want %d", got, want)
	}
}

// BenchmarkSnapshot10kJobs decodes a 10,000-job GET /jobs answer (scaled
// from a real capture) through HTTP into a planner.Snapshot.
func BenchmarkSnapshot10kJobs(b *testing.B) {
	body := scaledJobs(b, 10000)
	c := benchServer(b, body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJobs10k isolates the decoding of a 10,000-job answer
// (bytes in memory, no HTTP) into planner jobs.
func BenchmarkDecodeJobs10k(b *testing.B) {
	body := scaledJobs(b, 10000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var resp jobsRespV0042
		if err := decodeJSON(bytes.NewReader(body), &resp); err != nil {
			b.Fatal(err)
		}
		jobs, bad := jobsFromV0042(resp.Jobs)
		if bad != 0 || len(jobs) != 10000 {
			b.Fatalf("decoded %d jobs, %d unreadable", len(jobs), bad)
		}
	}
}
