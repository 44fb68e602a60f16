package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/strata-hpc/strata/db/dbtest"
)

// TestMain gives the package's database-backed tests a Postgres server
// (STRATA_TEST_DATABASE, or a throwaway one started by dbtest).
func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

func runStrataDB(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := newApp(&out, &errOut).RunContext(context.Background(), append([]string{"strata", "--log-level", "warn"}, args...))
	return out.String() + errOut.String(), err
}

func exitCodeOf(err error) int {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return -1
}
