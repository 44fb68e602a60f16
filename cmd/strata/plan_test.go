package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/slurm"
)

func TestPlanDryRunIsDefaultAndSendsNothing(t *testing.T) {
	srv := recordedSlurm(t)
	out, _, err := runStrata(t, "plan", "--policy", "fifo")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if !strings.Contains(out, "dry run: nothing sent") || !strings.Contains(out, "POST /slurm/v0.0.42/job/5 ") {
		t.Errorf("dry-run output lacks the mode or the request body:\n%s", out)
	}
	if w := srv.Writes(); len(w) != 0 {
		t.Errorf("dry run wrote %v", w)
	}
}

func TestPlanEnforceWritesAndReports(t *testing.T) {
	srv := recordedSlurm(t)
	out, _, err := runStrata(t, "plan", "--policy", "fifo", "--enforce", "--json", "--cycle", "3")
	if err != nil {
		t.Fatalf("plan --enforce: %v\n%s", err, out)
	}
	var doc struct {
		Apply slurm.ApplyReport `json:"apply"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Apply.DryRun || doc.Apply.Count(slurm.Applied) == 0 {
		t.Fatalf("apply report = %+v, want applied updates", doc.Apply)
	}
	writes := srv.Writes()
	if len(writes) != doc.Apply.Count(slurm.Applied) {
		t.Errorf("%d writes for %d applied results", len(writes), doc.Apply.Count(slurm.Applied))
	}
	for _, w := range writes {
		if !strings.Contains(w.Body, "cycle=3") {
			t.Errorf("write %+v lacks the cycle in the admin comment", w)
		}
	}
}

func TestPlanUsageErrors(t *testing.T) {
	recordedSlurm(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--dry-run", "--enforce"}, "exclude each other"},
		{[]string{"plan", "--policy", "nope"}, "unknown policy"},
		{[]string{"plan", "--slurm-url", "ftp://x"}, "want http"},
	}
	for _, tc := range tests {
		_, _, err := runStrata(t, tc.args...)
		var ec exitCoder
		if err == nil || !errors.As(err, &ec) || ec.ExitCode() != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("strata %v: err = %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
	got := strings.Join(slurmFlagNames(), ",")
	if diff := cmp.Diff("slurm-url,slurm-user,slurm-token-file,slurm-socket,slurm-timeout,slurm-retries,slurm-ca-file,slurm-insecure-skip-verify,slurm-bb-pool", got); diff != "" {
		t.Errorf("slurm flags (-want +got):\n%s", diff)
	}
}

func slurmFlagNames() []string {
	var names []string
	for _, f := range slurmFlags() {
		names = append(names, f.Names()[0])
	}
	return names
}
