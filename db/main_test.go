package db_test

import (
	"os"
	"testing"

	"github.com/strata-hpc/strata/db/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }
