package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

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
				Flags: databaseFlags(), Action: dbMigrate},
			{Name: "status", Usage: "show the schema version and the sample partitions",
				Flags: databaseFlags(), Action: dbStatus},
			{Name: "retention", Usage: "drop daily GPU-sample partitions older than --keep (rollups are kept)",
				Flags: append(databaseFlags(), &cli.DurationFlag{Name: flagRetentionKeep, Value: 30 * 24 * time.Hour,
					Usage: "keep this much raw sample history (e.g. 720h)"}),
				Action: dbRetention},
			{Name: "rollup", Usage: "recompute per-job energy rollups of jobs active since --since",
				Flags: append(databaseFlags(), &cli.DurationFlag{Name: flagRollupSince, Value: 24 * time.Hour,
					Usage: "recompute jobs whose GPU assignments are open or ended within this window"}),
				Action: dbRollup},
		},
	}
}

func dbMigrate(c *cli.Context) error {
	st, err := openDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	applied, err := st.Migrate(c.Context)
	if err != nil {
		return err
	}
	v, err := st.SchemaVersion(c.Context)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(c.App.Writer, "schema is current (version %d)\n", v)
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "applied migrations %s; schema version %d\n", joinInts(applied), v)
	return err
}

func dbStatus(c *cli.Context) error {
	st, err := openDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := st.SchemaVersion(c.Context)
	if err != nil {
		return err
	}
	want, err := db.LatestVersion()
	if err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintf(w, "schema version: %d (this strata expects %d)\n", v, want)
	if v < want {
		fmt.Fprintln(w, "run `strata db migrate` before starting strata")
		return exitError{code: 2, err: db.ErrSchemaBehind}
	}
	parts, err := st.SamplePartitions(c.Context)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		_, err = fmt.Fprintln(w, "sample partitions: none")
		return err
	}
	_, err = fmt.Fprintf(w, "sample partitions: %d (%s … %s)\n", len(parts), parts[0], parts[len(parts)-1])
	return err
}

func dbRetention(c *cli.Context) error {
	st, err := openDatabase(c, true)
	if err != nil {
		return err
	}
	defer st.Close()
	keep := c.Duration(flagRetentionKeep)
	if keep < 24*time.Hour {
		return exitError{code: 2, err: fmt.Errorf("--%s %v: keep at least one day", flagRetentionKeep, keep)}
	}
	dropped, err := st.DropSamplesBefore(c.Context, time.Now().Add(-keep))
	if err != nil {
		return err
	}
	lg := logger(c)
	lg.Info().Int("dropped", len(dropped)).Dur("keep", keep).Msg("sample retention applied")
	for _, p := range dropped {
		fmt.Fprintln(c.App.Writer, "dropped", p)
	}
	return nil
}

func dbRollup(c *cli.Context) error {
	st, err := openDatabase(c, true)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	jobs, err := st.RefreshRollups(c.Context, now.Add(-c.Duration(flagRollupSince)), now)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "rolled up %d jobs\n", len(jobs))
	return err
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
