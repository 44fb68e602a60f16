package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
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
		"JOBID|PARTITION|NAME|USER|ST|GPUS|PRIORITY|HINT",
		"1|gpu|cap-run2|root|R|2|26|ERROR hint workers=1-4: unknown key",
		"3|gpu|cap-bb2|alice|PD|1|26|strata: model=gpt2 gpus=1-2",
		"4|gpu|cap-pend|root|PD|2x4|53|ERROR hint workers=8: unknown key",
		"5|gpu|cap-perjob|root|PD|3/job|26|-",
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
		Jobs []queueRow `json:"jobs"`
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

func TestGPUShape(t *testing.T) {
	tests := []struct {
		job  planner.Job
		want string
	}{
		{planner.Job{GPUsPerNode: 4, Nodes: 1}, "4"},
		{planner.Job{GPUsPerNode: 4, Nodes: 2}, "2x4"},
		{planner.Job{GPUsPerJob: 3, Nodes: 1}, "3/job"},
		{planner.Job{GPUsPerNode: 2, Nodes: 1, GPUType: "a100"}, "2:a100"},
		{planner.Job{Nodes: 1}, "0"},
	}
	for _, tc := range tests {
		if got := gpuShape(tc.job); got != tc.want {
			t.Errorf("gpuShape(%+v) = %q, want %q", tc.job, got, tc.want)
		}
	}
}

func TestHintTextKeepsOnlyTheSegment(t *testing.T) {
	r := queueRow{Job: planner.Job{Comment: "my notes STRATA: model=bert   gpus=2 ; not hints"}, HasHint: true}
	if got := hintText(r, 0); got != "STRATA: model=bert gpus=2" {
		t.Errorf("hintText = %q", got)
	}
	if got := queueClip("abcdef", 4); got != "abc…" || !strings.HasSuffix(queueClip("x", 0), "x") {
		t.Errorf("queueClip = %q", got)
	}
}

// The HINT column shows the segment as written, found with the planner's own
// rules: multi-byte text before it (whose lower case has another length)
// and a "strata:" inside another word must not shift or crash it.
func TestHintTextFindsTheSegmentAsWritten(t *testing.T) {
	tests := []struct{ comment, want string }{
		{strings.Repeat("Ⱥ", 40) + " strata: gpus=2", "strata: gpus=2"},
		{"İİİ; STRATA: gpus=1-4;  mine", "STRATA: gpus=1-4"},
		{"nostrata: x; strata:  gpus=2", "strata: gpus=2"},
	}
	for _, tt := range tests {
		if got := hintText(queueRow{Job: planner.Job{Comment: tt.comment}, HasHint: true}, 0); got != tt.want {
			t.Errorf("hintText(%q) = %q, want %q", tt.comment, got, tt.want)
		}
	}
}
