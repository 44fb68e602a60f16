package slurmtest

import (
	"os"
	"testing"
	"time"

	"github.com/strata-hpc/strata/slurm"
)

// ConnectAccounting returns a test cluster with accounting (slurmdbd):
// the companion `make test` starts beside its bed (SLURM_ACCT_REST_URL,
// SLURM_ACCT_USER_NAME, SLURM_ACCT_JWT, SLURM_ACCT_TEST_DIR), else the
// bed's own cluster when it has accounting (SLURM_ACCOUNTING=1). Without
// either it fails the test with how to get one: like Connect, it never
// starts a cluster itself.
func ConnectAccounting(t testing.TB) *Cluster {
	t.Helper()
	if url, tok := os.Getenv("SLURM_ACCT_REST_URL"), os.Getenv("SLURM_ACCT_JWT"); url != "" && tok != "" {
		script, err := scriptPath()
		if err != nil {
			t.Fatalf("slurmtest: %v", err)
		}
		user := os.Getenv("SLURM_ACCT_USER_NAME")
		if user == "" {
			user = "root"
		}
		return &Cluster{script: script, dir: os.Getenv("SLURM_ACCT_TEST_DIR"), Operator: "strata",
			Config: slurm.Config{URL: url, User: user, Token: slurm.Secret(tok), Timeout: 10 * time.Second,
				Retries: 2, RetryBackoff: 200 * time.Millisecond}}
	}
	if os.Getenv("SLURM_ACCOUNTING") == "1" && os.Getenv("SLURM_REST_URL") != "" {
		c := Connect(t)
		c.dir, c.Operator = os.Getenv("SLURM_TEST_DIR"), os.Getenv("SLURM_OPERATOR_USER")
		return c
	}
	t.Fatalf("slurmtest: no Slurm test cluster with accounting (slurmdbd) in the environment: run `make test`, " +
		"or start a bed with it (`STRATA_TESTBED=mine SLURM_TEST_ACCOUNTING=1 scripts/testbed.sh up`, as root) " +
		"and source the env file it names; or use go test -short")
	return nil
}

// Script runs a command of scripts/slurm-test-cluster.sh on this instance
// (e.g. "dbd-stop", "dbd-start") and returns its combined output.
func (c *Cluster) Script(args ...string) (string, error) {
	return c.run(args...)
}
