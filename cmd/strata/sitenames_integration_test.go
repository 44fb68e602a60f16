package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// strata plan refuses, with exit status 2 naming the key, a configuration
// whose [[planner.limits]] names an account or a QOS the accounting
// cluster does not know; known ones pass the check.
func TestIntegrationAccountingPlanRefusesUnknownAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster with accounting")
	}
	cl := slurmtest.ConnectAccounting(t)
	t.Setenv("SLURM_REST_URL", cl.Config.URL)
	t.Setenv("SLURM_USER_NAME", cl.Config.User)
	t.Setenv("SLURM_JWT", string(cl.Config.Token))
	t.Setenv("STRATA_SLURM_TOKEN_FILE", "")
	for _, tc := range []struct {
		account, wantErr string
	}{
		{"account = \"physics\"", `planner.limits[0].account: Slurm knows no account "physics"`},
		{"qos = \"gold\"", `planner.limits[0].qos: Slurm knows no QOS "gold"`},
		{"account = \"research\"\nqos = \"high\"", ""},
	} {
		path := filepath.Join(t.TempDir(), "strata.toml")
		if err := os.WriteFile(path, []byte("[[planner.limits]]\n"+tc.account+"\nmax-weight = 2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runStrataDB(t, "--config", path, "plan", "--policy", "fifo")
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("account %s: %v\n%s", tc.account, err, out)
		case tc.wantErr != "" && (exitCodeOf(err) != 2 || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("account %s: err = %v (exit %d), want exit 2 containing %q", tc.account, err, exitCodeOf(err), tc.wantErr)
		}
	}
}
