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

// memDecisions is a Source over stored rows (newest first).
type memDecisions struct {
	rows []db.StoredDecision
	last *db.Cycle
}

func (m memDecisions) DecisionsForJob(_ context.Context, id int64, _ string, limit int) ([]db.StoredDecision, error) {
	var out []db.StoredDecision
	for _, r := range m.rows {
		if r.JobID == id && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m memDecisions) LatestCycle(context.Context, string) (db.Cycle, error) {
	if m.last == nil {
		return db.Cycle{}, db.ErrNotFound
	}
	return *m.last, nil
}

func storedRow(cycle int64, enforce bool, outcome decide.Outcome, gd decide.Name, body string, at time.Time) db.StoredDecision {
	return db.StoredDecision{CycleID: cycle, Cluster: "c", Policy: "smd", Enforce: enforce, DecidedAt: at,
		CycleDecision: db.CycleDecision{
			Decision: planner.Decision{JobID: 7, Action: planner.ActionUpdate, Workers: 4, PS: 1, GPUsPerNode: 4,
				NodeCount: 1, Rank: 2, Priority: 100010, PredictedStart: at.Add(time.Hour), PredictedEnd: at.Add(2 * time.Hour),
				Reasons: []planner.Reason{planner.ReasonWaitResources, planner.ReasonAllocationChanged}},
			User: "alice", Partition: "gpu", JobName: "bert", RequestedGPUs: 2, Outcome: outcome, Guard: gd, Body: body,
			Alternatives: []db.Alternative{{Policy: "fifo", Action: planner.ActionUpdate, Workers: 2, Rank: 5}},
		}}
}

func TestExplainText(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	at := now.Add(-5 * time.Minute)
	tests := []struct {
		name string
		src  memDecisions
		want []string
		not  []string
	}{
		{"enforced", memDecisions{rows: []db.StoredDecision{
			storedRow(9, true, "applied", "", `{"priority":1}`, at),
			storedRow(4, true, "held", decide.CycleLimit, "", at.Add(-time.Hour))}}, []string{
			"Job 7 (bert) of user alice in partition gpu, asking 2 GPU(s)",
			"Decided in cycle 9 at 2026-11-22 09:55:00Z (5m0s ago) by policy smd, enforce mode.",
			"run with 4 worker GPU(s) as 1 node(s) × 4 GPU(s) and 1 parameter server(s); start order 2 (Slurm priority 100010)",
			planner.ReasonAllocationChanged.Describe(),
			"Predicted start 2026-11-22 10:55:00Z (in 55m0s)",
			"written to the job", `request body: {"priority":1}`,
			"in shadow mode the same decision is computed",
			"policy fifo would have: run with 2 worker GPU(s); start order 5",
			"Earlier decisions", "cycle 4",
		}, nil},
		{"shadow", memDecisions{rows: []db.StoredDecision{storedRow(3, false, "dry-run", "", `{"x":1}`, at)}}, []string{
			"shadow (dry-run) mode", "nothing written (shadow mode)", "in enforce mode Strata would have sent",
		}, []string{"Earlier decisions"}},
		{"with settings", memDecisions{rows: []db.StoredDecision{func() db.StoredDecision {
			d := storedRow(3, true, "applied", "", "{}", at)
			d.Settings = map[string]string{"planner.energy-weight": "0.5", "planner.limits": "default"}
			return d
		}()}}, []string{
			"Settings of that cycle: planner.energy-weight=0.5 planner.limits=default",
		}, nil},
		{"calibrated", memDecisions{rows: []db.StoredDecision{func() db.StoredDecision {
			d := storedRow(3, true, "applied", "", "{}", at)
			d.Reasons = append(d.Reasons, planner.ReasonModelled, planner.ReasonCalibrated)
			d.Detail = "modelled run time ×1.32, measured on 7 finished bert jobs on a100"
			return d
		}()}}, []string{
			planner.ReasonCalibrated.Describe(),
			"Detail: modelled run time ×1.32, measured on 7 finished bert jobs on a100",
		}, nil},
		{"corrected and bound", memDecisions{rows: []db.StoredDecision{func() db.StoredDecision {
			d := storedRow(3, true, "applied", "", "{}", at)
			d.Reasons = append(d.Reasons, planner.ReasonModelled, planner.ReasonPredictionCorrected, planner.ReasonClaimBound)
			d.Detail = "prediction ×4.00: your last 3 jobs ran a median 8× their predictions"
			d.Claimed, d.TimeLimit = 15*time.Minute, 2*time.Hour
			return d
		}()}}, []string{
			planner.ReasonPredictionCorrected.Describe(), planner.ReasonClaimBound.Describe(),
			"Detail: prediction ×4.00: your last 3 jobs ran a median 8× their predictions",
			"the hint (or history) gave a run of 15m0s; planned with 1h0m0s",
			"Time limit lowered by Strata from the limit the job asked for to 02:00:00 (cycle 3",
		}, nil},
		{"held by a guard", memDecisions{rows: []db.StoredDecision{storedRow(3, true, "held", decide.JobCap, "", at)}}, []string{
			"held back: " + decide.JobCap.Describe(),
		}, nil},
		{"unknown job", memDecisions{last: &db.Cycle{ID: 12, Policy: "smd", StartedAt: at, Inputs: db.CycleInputs{PendingJobs: 40}}}, []string{
			"no recorded decision for job 7", "Last cycle: 12 at 2026-11-22 09:55:00Z (5m0s ago) (shadow (dry-run) mode, policy smd, 40 pending jobs)",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Explain(context.Background(), &buf, tt.src, 7, Options{History: 5, Now: now}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, buf.String())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(buf.String(), w) {
					t.Errorf("output has %q:\n%s", w, buf.String())
				}
			}
		})
	}
}

func TestExplainJSON(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	src := memDecisions{rows: []db.StoredDecision{storedRow(9, true, "applied", "", "{}", at)}}
	var buf bytes.Buffer
	if err := Explain(context.Background(), &buf, src, 7, Options{History: 5, JSON: true, Now: at}); err != nil {
		t.Fatal(err)
	}
	var got Explanation
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := Explanation{JobID: 7, Found: true, Latest: &src.rows[0], Reasons: []Reason{
		{"wait_resources", planner.ReasonWaitResources.Describe()},
		{"allocation_changed", planner.ReasonAllocationChanged.Describe()}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explain --json (-want +got):\n%s", diff)
	}
}

func TestParseJobID(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"123", 123, false}, {"123.batch", 123, false}, {"123+1", 123, false},
		{"123_4", 0, true}, {"abc", 0, true}, {"0", 0, true}, {"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseJobID(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseJobID(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
