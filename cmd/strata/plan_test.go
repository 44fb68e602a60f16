package main

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
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

// plan --enforce goes through the daemon's guarded path: it needs the
// database (audit trail, one-writer lock), numbers the cycle there, writes
// only what the guards let through and records the cycle.
func TestPlanEnforceWritesThroughTheGuards(t *testing.T) {
	srv := recordedSlurm(t)
	if _, _, err := runStrata(t, "plan", "--enforce"); exitCodeOf(err) != 2 || !strings.Contains(err.Error(), "database") {
		t.Fatalf("plan --enforce without a database: %v, want exit 2 naming the database", err)
	}
	if testing.Short() {
		t.Skip("integration: the rest needs Postgres (make test)")
	}
	url := dbtest.URL(t)
	st := dbtest.Open(t, url, true)
	t.Setenv("STRATA_DATABASE_URL", url)
	out, _, err := runStrata(t, "plan", "--policy", "fifo", "--enforce", "--json")
	if err != nil {
		t.Fatalf("plan --enforce: %v\n%s", err, out)
	}
	var doc struct {
		Guards []struct {
			JobID   int64          `json:"job_id"`
			Write   bool           `json:"write"`
			Outcome decide.Outcome `json:"outcome"`
			Guard   decide.Name    `json:"guard"`
		} `json:"guards"`
		Apply slurm.ApplyReport `json:"apply"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Apply.DryRun || doc.Apply.Count(decide.Applied) == 0 {
		t.Fatalf("apply report = %+v, want applied updates", doc.Apply)
	}
	for _, g := range doc.Guards {
		if g.JobID == 4 && (g.Write || g.Outcome != decide.Kept) { // its hint does not parse: the planner keeps it
			t.Errorf("job 4 (invalid hint) guard verdict %+v, want kept, nothing written", g)
		}
	}
	writes := srv.Writes()
	if len(writes) != doc.Apply.Count(decide.Applied) {
		t.Errorf("%d writes for %d applied results", len(writes), doc.Apply.Count(decide.Applied))
	}
	c, err := st.LatestCycle(context.Background(), "")
	if err != nil || !c.Enforce {
		t.Fatalf("recorded cycle %+v, %v; want an enforce cycle", c, err)
	}
	for _, w := range writes {
		if !strings.Contains(w.Body, "cycle="+strconv.FormatInt(c.ID, 10)) {
			t.Errorf("write %+v lacks the recorded cycle %d in the admin comment", w, c.ID)
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
		{[]string{"plan", "--policy", "nope"}, "--policy"},
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
	if diff := cmp.Diff("slurm-url,slurm-user,slurm-token-file,slurm-socket,slurm-timeout,slurm-retries,slurm-ca-file,slurm-insecure-skip-verify,slurm-bb-pool,slurm-scontrol,slurm-max-response-size", got); diff != "" {
		t.Errorf("slurm flags (-want +got):\n%s", diff)
	}
}

func slurmFlagNames() []string {
	var names []string
	for _, f := range cliflags.Slurm() {
		names = append(names, f.Names()[0])
	}
	return names
}
