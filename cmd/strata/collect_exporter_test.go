package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db/dbtest"
)

// strata collect --source exporter against a stand-in dcgm-exporter that
// exports hpc_job labels: samples and job assignments reach Postgres.
func TestCollectExporterWithHPCJobLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	page, err := os.ReadFile("../../dcgm/testdata/exporter-hpc-job.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	defer srv.Close()
	url := dbtest.URL(t)
	t.Setenv("STRATA_DATABASE_URL", url)
	if out, err := runStrataDB(t, "db", "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	err = newApp(&out, &out).RunContext(ctx, []string{"strata", "--log-level", "warn", "collect",
		"--source", "exporter", "--exporter-url", srv.URL + "/metrics", "--interval", "200ms",
		"--flush-every", "0s", "--spool-file", t.TempDir() + "/spool.jsonl", "--metrics-listen", ""})
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, out.String())
	}
	st := dbtest.Open(t, url, false)
	open, err := st.OpenAssignments(context.Background(), "gpu-node-07")
	if err != nil {
		t.Fatal(err)
	}
	type holding struct {
		Job  int64
		UUID string
	}
	var got []holding
	for _, a := range open {
		got = append(got, holding{a.Job, a.UUID})
	}
	want := []holding{{4711, "GPU-8c5fd6b2-7b4b-4f6b-a3a4-0d1d1c0a1f11"}, {4712, "GPU-8c5fd6b2-7b4b-4f6b-a3a4-0d1d1c0a1f11"},
		{4713, "GPU-2d3e4f50-6172-4839-9aab-bccddeeff001"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("open assignments (-want +got):\n%s", d)
	}
	n, err := st.CountSamples(context.Background(), time.Now().Add(-time.Minute), time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if n < 4 || n%2 != 0 {
		t.Errorf("%d samples stored, want ≥ 2 sweeps of 2 GPUs", n)
	}
}
