package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/db"
)

// Database flags shared by `strata db` and `strata collect`. The password
// never travels in argv: it comes from a 0600 file, or inside the URL when
// the URL is given through the environment.
const (
	flagDatabaseURL          = "database-url"
	flagDatabasePasswordFile = "database-password-file"
)

func databaseFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagDatabaseURL, EnvVars: []string{"STRATA_DATABASE_URL"},
			Usage: "Postgres URL, e.g. postgres://strata@db1/strata (put a password only in the environment variable)"},
		&cli.StringFlag{Name: flagDatabasePasswordFile, EnvVars: []string{"STRATA_DATABASE_PASSWORD_FILE"},
			Usage: "file holding the database password (mode 0600)"},
	}
}

// databaseConfig builds the db.Config from the database flags. A password
// written in a --database-url given on the command line is refused.
func databaseConfig(c *cli.Context) (db.Config, error) {
	cfg := db.Config{URL: c.String(flagDatabaseURL), MaxConns: 4}
	if cfg.URL == "" {
		return cfg, exitError{code: 2, err: fmt.Errorf("--%s (or STRATA_DATABASE_URL) is required", flagDatabaseURL)}
	}
	if cfg.HasPassword() && os.Getenv("STRATA_DATABASE_URL") != cfg.URL {
		return cfg, exitError{code: 2, err: fmt.Errorf("--%s carries a password on the command line, where other users can read it: "+
			"use --%s or set STRATA_DATABASE_URL instead", flagDatabaseURL, flagDatabasePasswordFile)}
	}
	if path := c.String(flagDatabasePasswordFile); path != "" {
		if err := config.CheckSecretFile(flagDatabasePasswordFile, path); err != nil {
			return cfg, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("read database password: %w", err)
		}
		cfg.Password = strings.TrimSpace(string(b))
	}
	return cfg, nil
}

// openDatabase opens the store named by the database flags. When
// checkSchema is set it refuses a schema that is not current.
func openDatabase(c *cli.Context, checkSchema bool) (*db.Store, error) {
	cfg, err := databaseConfig(c)
	if err != nil {
		return nil, err
	}
	st, err := db.Open(c.Context, cfg)
	if err != nil {
		return nil, err
	}
	if checkSchema {
		if err := st.CheckSchema(c.Context); err != nil {
			st.Close()
			return nil, exitError{code: 2, err: fmt.Errorf("database %s: %w", cfg.Redacted(), err)}
		}
	}
	return st, nil
}
