package collect

import (
	"os"
	"testing"

	"github.com/strata-hpc/strata/db/dbtest"
)

// TestMain gives the fault suite a Postgres server (STRATA_TEST_DATABASE,
// or a throwaway one started by dbtest).
func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }
