package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestExplainWithoutDatabaseReadsSlurm: a user without a database role
// (no STRATA_DATABASE_URL) still gets what Strata did to their job, from
// the admin comment Slurm holds, marked as the short form (issue 26.2).
// Without slurmrestd either, the database error stands (exit 2).
func TestExplainWithoutDatabaseReadsSlurm(t *testing.T) {
	srv := recordedSlurm(t)
	t.Setenv("STRATA_DATABASE_URL", "")
	body := `{"admin_comment": "strata: workers=2 ps=0 rank=1 cycle=5 why=deferred,allocation_changed start=2026-11-22T03:00:00Z"}`
	resp, err := http.Post(srv.URL+"/slurm/v0.0.42/job/4", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	out, errOut, err := runStrata(t, "explain", "4")
	if err != nil {
		t.Fatalf("explain without a database: %v\n%s", err, errOut)
	}
	for _, want := range []string{"Short form, from Slurm's record of job 4: no database was reachable (--database-url",
		"Decision (cycle 5): run with 2 worker GPU(s); start order 1", "(deferred)", "(allocation_changed)", "Planned start 2026-11-22 03:00:00Z"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runStrata(t, "explain", "--json", "4")
	if err != nil || !strings.Contains(out, `"short_form": true`) {
		t.Errorf("explain --json: %v\n%s", err, out)
	}

	t.Setenv("SLURM_REST_URL", "")
	_, _, err = runStrata(t, "explain", "4")
	if err == nil || !strings.Contains(err.Error(), "STRATA_DATABASE_URL") || exitCodeOf(err) != 2 {
		t.Errorf("without database and slurmrestd: err = %v (exit %d), want the database's usage error", err, exitCodeOf(err))
	}
}
