package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/queue"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// recordedSlurm points the slurm flags at a recorded-JSON slurmrestd.
func recordedSlurm(t *testing.T) *slurmtest.Server {
	t.Helper()
	srv := slurmtest.NewServer(t, "../../slurm/testdata")
	t.Setenv("SLURM_REST_URL", srv.URL)
	t.Setenv("SLURM_USER_NAME", "root")
	t.Setenv("SLURM_JWT", "not-a-real-token")
	t.Setenv("STRATA_SLURM_TOKEN_FILE", "")
	return srv
}

func TestQueueParsable(t *testing.T) {
	recordedSlurm(t)
	out, _, err := runStrata(t, "queue", "-P")
	if err != nil {
		t.Fatal(err)
	}
	// The HINT column is compared up to the planner's wording of the fix.
	want := []string{
		"JOBID|PARTITION|NAME|USER|ST|GPUS|PRIORITY|TIME_LIMIT|DECISION|START|HINT",
		"1|gpu|cap-run2|root|R|2|26|UNLIMITED|-|2026-11-22T02:06:50|ERROR hint workers=1-4: unknown key",
		"3|gpu|cap-bb2|alice|PD|1|26|UNLIMITED|-|-|strata: model=gpt2 gpus=1-2",
		"4|gpu|cap-pend|root|PD|2x4|53|00:30:00|-|-|ERROR hint workers=8: unknown key",
		"5|gpu|cap-perjob|root|PD|3/job|26|UNLIMITED|-|-|-",
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := range got {
		if k := strings.Index(got[i], "unknown key"); k >= 0 {
			got[i] = got[i][:k+len("unknown key")]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strata queue -P (-want +got):\n%s", diff)
	}
}

func TestQueueJSONHasParsedHints(t *testing.T) {
	srv := recordedSlurm(t)
	srv.SetJobComment(5, "notes; strata: model=resnet50 gpus=1-4")
	out, _, err := runStrata(t, "queue", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Jobs []queue.Row `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	got := map[int64]string{}
	for _, j := range doc.Jobs {
		switch {
		case j.Hints != nil:
			got[j.ID] = j.Hints.Model
		case j.HintError != "":
			got[j.ID] = "error"
		}
	}
	if diff := cmp.Diff(map[int64]string{1: "error", 3: "gpt2", 4: "error", 5: "resnet50"}, got); diff != "" {
		t.Errorf("hints per job (-want +got):\n%s", diff)
	}
}
