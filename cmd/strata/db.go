package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/dbadmin"
	"github.com/strata-hpc/strata/db"
)

const (
	flagRetentionKeep = "keep"
	flagRollupSince   = "since"
)

func dbCommand() *cli.Command {
	return &cli.Command{
		Name:  "db",
		Usage: "manage the Postgres database: migrate, status, retention, rollup",
		Subcommands: []*cli.Command{
			{Name: "migrate", Usage: "apply the embedded schema migrations (each in one transaction)",
				Flags: cliflags.Database(), Action: withStore(false, func(c *cli.Context, st *db.Store) error {
					return dbadmin.Migrate(c.Context, c.App.Writer, st)
				})},
			{Name: "status", Usage: "show the schema version and the sample partitions",
				Flags: cliflags.Database(), Action: withStore(false, func(c *cli.Context, st *db.Store) error {
					return dbadmin.Status(c.Context, c.App.Writer, st)
				})},
			{Name: "retention", Usage: "drop daily GPU-sample partitions older than --keep (rollups are kept)",
				Flags: append(cliflags.Database(), &cli.DurationFlag{Name: flagRetentionKeep, Value: 30 * 24 * time.Hour,
					Usage: "keep this much raw sample history (e.g. 720h)"}),
				Action: withStore(true, func(c *cli.Context, st *db.Store) error {
					keep := c.Duration(flagRetentionKeep)
					if keep < 24*time.Hour {
						return exitError{code: 2, err: fmt.Errorf("--%s %v: keep at least one day", flagRetentionKeep, keep)}
					}
					return dbadmin.Retention(c.Context, c.App.Writer, st, keep, time.Now(), logger(c))
				})},
			{Name: "rollup", Usage: "recompute per-job energy rollups of jobs active since --since",
				Flags: append(cliflags.Database(), &cli.DurationFlag{Name: flagRollupSince, Value: 24 * time.Hour,
					Usage: "recompute jobs whose GPU assignments are open or ended within this window"}),
				Action: withStore(true, func(c *cli.Context, st *db.Store) error {
					return dbadmin.Rollup(c.Context, c.App.Writer, st, c.Duration(flagRollupSince), time.Now())
				})},
		},
	}
}

// withStore runs fn with the store named by the database flags (its schema
// checked first when checkSchema is set), and closes it.
func withStore(checkSchema bool, fn func(c *cli.Context, st *db.Store) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		st, err := cliflags.OpenDatabase(c, checkSchema)
		if err != nil {
			return err
		}
		defer st.Close()
		return fn(c, st)
	}
}
