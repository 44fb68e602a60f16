package slurm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/slurm"
)

// accountingStandIn serves the recorded answers of a slurmrestd with
// slurmdbd: testdata/slurmdb_jobs.json for every /slurmdb jobs request
// (each window of a read gets all of them, as overlapping windows of the
// real one would), the recorded jobs, nodes and partitions (partitions: the
// file given, with status).
type accountingStandIn struct {
	mu      sync.Mutex
	windows [][2]int64 // start_time, end_time of each jobs request
}

func (a *accountingStandIn) serve(t *testing.T, partitions string, partStatus int) *httptest.Server {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	files := map[string][]byte{
		"/slurm/v0.0.42/jobs/":       read("jobs.json"),
		"/slurm/v0.0.42/nodes/":      read("nodes.json"),
		"/slurm/v0.0.42/partitions/": read(partitions),
		"/slurmdb/v0.0.42/jobs/":     read("slurmdb_jobs.json"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi/v3":
			_, _ = w.Write([]byte(`{"paths":{"/slurm/v0.0.42/jobs/":{},"/slurmdb/v0.0.42/jobs/":{}}}`))
			return
		case "/slurmdb/v0.0.42/jobs/":
			s, _ := strconv.ParseInt(r.URL.Query().Get("start_time"), 10, 64)
			e, _ := strconv.ParseInt(r.URL.Query().Get("end_time"), 10, 64)
			a.mu.Lock()
			a.windows = append(a.windows, [2]int64{s, e})
			a.mu.Unlock()
		case "/slurm/v0.0.42/partitions/":
			w.WriteHeader(partStatus)
		}
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFinishedJobsOncePerWindowCompletedOnly(t *testing.T) {
	var a accountingStandIn
	srv := a.serve(t, "partitions.json", http.StatusOK)
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t"}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if !c.ServesAccounting() {
		t.Error("ServesAccounting() = false for a slurmrestd serving /slurmdb")
	}
	t0 := time.Unix(1795000000, 0).UTC()
	got, err := c.FinishedJobs(context.Background(), "", t0, t0.Add(21*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID        int64
		User      string
		GPUs      int
		Run       time.Duration
		EndsInDay int
	}
	var rows []row
	for _, j := range got {
		rows = append(rows, row{j.ID, j.User, j.GPUs, j.End.Sub(j.Start), int(j.End.Sub(t0).Hours() / 24)})
	}
	// The FAILED job 12 is left out; each other job once, by its end's window.
	want := []row{{5, "alice", 1, 2 * time.Minute, 1}, {6, "alice", 2, 10 * time.Minute, 8}, {10, "bob", 1, time.Minute, 15}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	week := int64(7 * 24 * 3600)
	s := t0.Unix()
	wantWindows := [][2]int64{{s, s + week}, {s + week, s + 2*week}, {s + 2*week, s + 3*week}}
	if diff := cmp.Diff(wantWindows, a.windows); diff != "" {
		t.Errorf("requested windows (-want +got):\n%s", diff)
	}
}

// While slurmdbd is down, slurmrestd answers the partitions with HTTP 500
// and a slurmdb_tres_get error (recorded from the test cluster): the
// snapshot still reads them.
func TestSnapshotWhileSlurmdbdIsDown(t *testing.T) {
	var a accountingStandIn
	srv := a.serve(t, "partitions_slurmdbd_down.json", http.StatusInternalServerError)
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t",
		Retries: 1, RetryBackoff: time.Millisecond}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if len(s.Partitions) != 1 || s.Partitions[0].Name != "gpu" {
		t.Errorf("partitions = %+v, want the gpu partition", s.Partitions)
	}
}
