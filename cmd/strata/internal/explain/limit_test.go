package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// TestExplainKeepsTheLoweredLimit (issue 30.4): explain keeps saying that
// Strata lowered a job's time limit, from what to what in Slurm's time
// format, while it holds — also when later cycles decided nothing about
// the limit (before, only the cycle that lowered it said so) — and stops
// once `strata restore` wrote the job or Slurm's record shows the limit
// back. With and without a database.
func TestExplainKeepsTheLoweredLimit(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	bound := storedRow(3, true, decide.Applied, "", `{"time_limit":{"number":30,"set":true}}`, at)
	bound.TimeLimit, bound.Detail = 30*time.Minute, "time limit lowered from 02:00:00 to 00:30:00 (2× the predicted run time 5m0s, at least 00:30:00)"
	later := storedRow(5, true, decide.Unchanged, "", "", at.Add(30*time.Minute)) // a later cycle: nothing about the limit
	restored := storedRow(6, true, decide.Applied, "", `{"priority":{"infinite":true}}`, at.Add(40*time.Minute))
	restored.Policy, restored.Action = db.RestorePolicy, db.RestoreAction
	job := func(limit time.Duration) slurmJobs {
		return slurmJobs{7: {ID: 7, State: planner.JobPending, TimeLimit: limit,
			AdminComment: "strata: workers=4 ps=1 rank=2 cycle=3 limit=02:00:00"}}
	}
	const says = "Time limit lowered by Strata from 02:00:00 (the job's own) to 00:30:00 (cycle 3"
	tests := []struct {
		name  string
		rows  []db.StoredDecision // newest first
		slurm JobReader
		want  *Limit
	}{
		{"a later cycle: still said", []db.StoredDecision{later, bound}, nil,
			&Limit{From: "02:00:00", To: "00:30:00", FromS: 7200, ToS: 1800, Cycle: 3, Source: "audit trail"}},
		{"restored since: not said", []db.StoredDecision{restored, later, bound}, nil, nil},
		{"Slurm's record: still lowered", []db.StoredDecision{later, bound}, job(30 * time.Minute),
			&Limit{From: "02:00:00", To: "00:30:00", FromS: 7200, ToS: 1800, Cycle: 3, Source: "slurm"}},
		{"Slurm's record: back to the user's", []db.StoredDecision{later, bound}, job(2 * time.Hour), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memDecisions{rows: tt.rows}
			var text, js bytes.Buffer
			o := Options{History: 5, Now: now, Slurm: tt.slurm}
			if err := Explain(context.Background(), &text, src, 7, o); err != nil {
				t.Fatal(err)
			}
			if tt.rows[0].Policy == db.RestorePolicy && !strings.Contains(text.String(), "Decision: put back what Strata wrote (strata restore)") {
				t.Errorf("the restore is not told:\n%s", text.String())
			}
			if got := strings.Contains(text.String(), says); got != (tt.want != nil) {
				t.Errorf("says %q: %v, want %v\n%s", says, got, tt.want != nil, text.String())
			}
			o.JSON = true
			if err := Explain(context.Background(), &js, src, 7, o); err != nil {
				t.Fatal(err)
			}
			var ex Explanation
			if err := json.Unmarshal(js.Bytes(), &ex); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ex.LimitLowered); diff != "" {
				t.Errorf("limit_lowered (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShortFormLimit: without a database, the short form says the same
// from the job's record, while its limit is below the admin comment's
// limit= (old segments in minutes too).
func TestShortFormLimit(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, comment string
		limit         time.Duration
		want          string
	}{
		{"lowered", "strata: workers=1 ps=0 rank=1 cycle=4 limit=1-00:00:00", 30 * time.Minute,
			"Time limit lowered by Strata from 1-00:00:00 (the job's own) to 00:30:00 (cycle 4"},
		{"old minutes", "strata: workers=1 ps=0 rank=1 cycle=4 limit=120", 30 * time.Minute,
			"from 02:00:00 (the job's own) to 00:30:00"},
		{"put back", "strata: workers=1 ps=0 rank=1 cycle=4 limit=02:00:00", 2 * time.Hour, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := slurmJobs{9: {ID: 9, State: planner.JobPending, TimeLimit: tt.limit, AdminComment: tt.comment}}
			if err := ExplainFromSlurm(context.Background(), &out, r, 9, Options{Now: now}, nil); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); tt.want == "" && strings.Contains(got, "Time limit lowered") ||
				tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("output %q, want %q", got, tt.want)
			}
		})
	}
}
