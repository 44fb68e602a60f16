package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

func result(dryRun bool, applied decide.Outcome) daemon.Result {
	return daemon.Result{
		Plan: planner.Plan{Policy: "smd", SnapshotID: "s1", Decisions: []planner.Decision{
			{JobID: 7, Action: planner.ActionUpdate, Start: true, GPUsPerNode: 4, NodeCount: 2, PS: 1, Rank: 1, Priority: 100010,
				Reasons: []planner.Reason{planner.ReasonAllocationChanged}, Detail: "wider"},
			{JobID: 8, Action: planner.ActionKeep, Rank: 2},
		}},
		Verdicts: []decide.Verdict{{Write: true}, {Outcome: decide.Held, Guard: decide.JobCap}},
		Report: slurm.ApplyReport{DryRun: dryRun, Results: []slurm.ApplyResult{
			{JobID: 7, Outcome: applied, Body: `{"priority":100010}`, Detail: "refused"}}},
	}
}

func TestWriteTable(t *testing.T) {
	tests := []struct {
		name string
		res  daemon.Result
		want string
	}{
		{"dry run", result(true, decide.DryRun), "policy smd, snapshot s1 (dry run: nothing sent)\n" +
			"JOBID  ACTION  START  GPUS     RANK  PRIORITY  OUTCOME             REASONS\n" +
			"7      update  true   2x4+1ps  1     100010    dry-run             allocation_changed (wider)\n" +
			"8      keep    false  -        2     -         held (size_locked)  \n" +
			"POST /slurm/v0.0.42/job/7 {\"priority\":100010}\n"},
		{"failed write", result(false, decide.Failed), "policy smd, snapshot s1 (enforce)\n" +
			"JOBID  ACTION  START  GPUS     RANK  PRIORITY  OUTCOME             REASONS\n" +
			"7      update  true   2x4+1ps  1     100010    failed              allocation_changed (wider)\n" +
			"8      keep    false  -        2     -         held (size_locked)  \n" +
			"POST /slurm/v0.0.42/job/7 {\"priority\":100010}  -> failed: refused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteTable(&b, tt.res, "v0.0.42"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("plan table (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrint(t *testing.T) {
	tests := []struct {
		name    string
		res     daemon.Result
		asJSON  bool
		wantOut string // substring of the output ("" = none)
		wantErr string
	}{
		{"dry run", result(true, decide.DryRun), false, "dry run: nothing sent", ""},
		{"json", result(true, decide.DryRun), true, `"dry_run": true`, ""},
		{"failed write: printed, then an error", result(false, decide.Failed), false, "failed: refused",
			"plan: 1 of 1 job updates failed (see the table)"},
		{"standby: nothing printed", daemon.Result{Standby: true}, false, "", "another strata daemon holds the writer lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			err := Print(&b, tt.res, tt.asJSON, "v0.0.42")
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if out := b.String(); (tt.wantOut == "") != (out == "") || !strings.Contains(out, tt.wantOut) {
				t.Errorf("output %q, want it to hold %q", out, tt.wantOut)
			}
		})
	}
}
