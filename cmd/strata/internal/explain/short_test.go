package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// slurmJobs is a JobReader over fixed jobs.
type slurmJobs map[int64]planner.Job

var errGone = errors.New("not found")

func (s slurmJobs) Job(_ context.Context, id int64) (planner.Job, error) {
	j, ok := s[id]
	if !ok {
		return planner.Job{}, fmt.Errorf("read job %d: %w", id, errGone)
	}
	return j, nil
}

// TestExplainFromSlurm: without a database, explain answers from the
// job's admin comment, and says that this is the short form (issue 26.2).
func TestExplainFromSlurm(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	begin := now.Add(20 * time.Minute)
	jobs := slurmJobs{
		12: {ID: 12, Name: "rn50", User: "alice", Partition: "gpu", State: planner.JobPending, Reason: "BeginTime",
			Comment: "strata: gpus=1-4", DeferredUntil: begin,
			AdminComment: fmt.Sprintf("jobstats=1; strata: workers=2 ps=0 rank=3 cycle=17 defer=%d why=deferred,allocation_changed start=2026-11-24T12:20:00Z", begin.Unix())},
		13: {ID: 13, Name: "old", User: "bob", Partition: "gpu", State: planner.JobPending, Reason: "Priority",
			AdminComment: "strata: workers=1 ps=0 rank=4 cycle=9"},
		14: {ID: 14, Name: "mine", User: "carol", Partition: "gpu", State: planner.JobPending, Reason: "Resources",
			Comment: "strata: rewrite=no"},
	}
	noDB := errors.New("--database-url (or STRATA_DATABASE_URL) is required")
	tests := []struct {
		name string
		id   int64
		want []string
		not  []string
	}{
		{"deferred and resized", 12, []string{
			"Short form, from Slurm's record of job 12: no database was reachable (--database-url (or STRATA_DATABASE_URL) is required).",
			"Job 12 (rn50) of user alice in partition gpu: PENDING, Slurm's reason BeginTime.",
			"Decision (cycle 17): run with 2 worker GPU(s); start order 3",
			"  - " + planner.ReasonDeferred.Describe() + " (deferred)",
			"  - " + planner.ReasonAllocationChanged.Describe() + " (allocation_changed)",
			"Planned start 2026-11-24 12:20:00Z (in 20m0s), as planned at that write.",
			"Strata set the job's begin time to 2026-11-24 12:20:00Z (in 20m0s): Slurm does not start it before then",
		}, []string{"older Strata"}},
		{"an older segment", 13, []string{"start order 4", "written by an older Strata"}, []string{"Planned start", "begin time"}},
		{"opted out", 14, []string{"Its hint says rewrite=no", "Strata has not written to this job"}, []string{"Decision"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := ExplainFromSlurm(context.Background(), &b, jobs, tt.id, Options{Now: now}, noDB); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("output has %q:\n%s", w, b.String())
				}
			}
		})
	}

	var b bytes.Buffer
	if err := ExplainFromSlurm(context.Background(), &b, jobs, 12, Options{Now: now, JSON: true}, noDB); err != nil {
		t.Fatal(err)
	}
	var got Short
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	want := Short{JobID: 12, ShortForm: true, NoDatabase: noDB.Error(), Found: true, User: "alice", Name: "rn50", Partition: "gpu",
		State: "PENDING", SlurmReason: "BeginTime", Workers: 2, Rank: 3, Cycle: 17,
		Reasons:      []Reason{{"deferred", planner.ReasonDeferred.Describe()}, {"allocation_changed", planner.ReasonAllocationChanged.Describe()}},
		PlannedStart: begin, DeferredUntil: begin}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("--json (-want +got):\n%s", d)
	}
	if err := ExplainFromSlurm(context.Background(), &b, jobs, 99, Options{Now: now}, noDB); !errors.Is(err, errGone) {
		t.Errorf("unknown job: err = %v, want the reader's error", err)
	}
}
