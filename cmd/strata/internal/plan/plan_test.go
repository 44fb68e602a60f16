package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/guard"
)

func result(dryRun bool, applied guard.Outcome) daemon.Result {
	return daemon.Result{
		Plan: planner.Plan{Policy: "smd", SnapshotID: "s1", Decisions: []planner.Decision{
			{JobID: 7, Action: planner.ActionUpdate, Start: true, GPUsPerNode: 4, NodeCount: 2, PS: 1, Rank: 1, Priority: 100010,
				Reasons: []planner.Reason{planner.ReasonAllocationChanged}, Detail: "wider"},
			{JobID: 8, Action: planner.ActionKeep, Rank: 2},
		}},
		Verdicts: []guard.Verdict{{Write: true}, {Outcome: guard.Held, Guard: guard.JobCap}},
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
		{"dry run", result(true, guard.DryRun), "policy smd, snapshot s1 (dry run: nothing sent)\n" +
			"JOBID  ACTION  START  GPUS     RANK  PRIORITY  OUTCOME         REASONS\n" +
			"7      update  true   2x4+1ps  1     100010    dry-run         allocation_changed (wider)\n" +
			"8      keep    false  -        2     -         held (job_cap)  \n" +
			"POST /slurm/v0.0.42/job/7 {\"priority\":100010}\n"},
		{"failed write", result(false, guard.Failed), "policy smd, snapshot s1 (enforce)\n" +
			"JOBID  ACTION  START  GPUS     RANK  PRIORITY  OUTCOME         REASONS\n" +
			"7      update  true   2x4+1ps  1     100010    failed          allocation_changed (wider)\n" +
			"8      keep    false  -        2     -         held (job_cap)  \n" +
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
