package slurm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/slurm"
)

// EndedJobs keeps every job that ran, whatever its end state (the FAILED
// job 12 too, which FinishedJobs leaves out), but not one still running
// (job 10 made RUNNING, with the end slurmrestd gives running jobs: the
// time of the answer), with its nodes, eligible time
// and comment (a recorded answer with job 5's comment and begin time set,
// as slurmdbd stores them with AccountingStoreFlags=job_comment).
func TestEndedJobsEveryStateWithCommentAndNodes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "slurmdb_jobs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, j := range doc["jobs"].([]any) {
		m := j.(map[string]any)
		if m["job_id"].(float64) == 5 {
			m["comment"].(map[string]any)["job"] = "strata: model=resnet50 gpus=1-2"
			m["time"].(map[string]any)["eligible"] = 1795086275
		}
		if m["job_id"].(float64) == 10 {
			m["state"].(map[string]any)["current"] = []any{"RUNNING"}
		}
	}
	answer, _ := json.Marshal(doc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi/v3":
			_, _ = w.Write([]byte(`{"paths":{"/slurm/v0.0.42/jobs/":{},"/slurmdb/v0.0.42/jobs/":{}}}`))
		case "/slurmdb/v0.0.42/jobs/":
			_, _ = w.Write(answer)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t"}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1795000000, 0).UTC()
	got, err := c.EndedJobs(context.Background(), "", t0, t0.Add(21*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID              int64
		State, Comment  string
		Nodes           int
		WaitFromBegin   time.Duration
		Run             time.Duration
		HasEligibleTime bool
	}
	var rows []row
	for _, j := range got {
		rows = append(rows, row{j.ID, j.State, j.Comment, j.Nodes, j.Start.Sub(j.Eligible), j.End.Sub(j.Start), !j.Eligible.IsZero()})
	}
	want := []row{
		{5, "COMPLETED", "strata: model=resnet50 gpus=1-2", 1, 5 * time.Second, 2 * time.Minute, true},
		{12, "FAILED", "", 1, 10 * time.Second, time.Minute, true},
		{6, "COMPLETED", "", 1, 10 * time.Second, 10 * time.Minute, true},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("ended jobs (-want +got):\n%s", diff)
	}
}
