package main

import (
	"github.com/urfave/cli/v2"
)

// reportDBFlags are the database flags of the report and serve commands
// (the same as `strata db` and `strata collect`, so one configuration key
// serves them all). A read-only database role is enough for reports.
func reportDBFlags() []cli.Flag { return databaseFlags() }

// openDBReportSource opens the Postgres store named by the database flags
// and checks its schema is current.
func openDBReportSource(c *cli.Context) (reportSource, func(), error) {
	st, err := openDatabase(c, true)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}
