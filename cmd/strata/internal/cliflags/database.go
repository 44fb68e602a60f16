package cliflags

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
	FlagDatabaseURL          = "database-url"
	FlagDatabasePasswordFile = "database-password-file"
)

func Database() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagDatabaseURL, EnvVars: []string{"STRATA_DATABASE_URL"},
			Usage: "Postgres URL, e.g. postgres://strata@db1/strata (put a password only in the environment variable)"},
		&cli.StringFlag{Name: FlagDatabasePasswordFile, EnvVars: []string{"STRATA_DATABASE_PASSWORD_FILE"},
			Usage: "file holding the database password (mode 0600)"},
	}
}

// DatabaseConfig builds the db.Config from the database flags. A password
// written in a --database-url given on the command line is refused.
func DatabaseConfig(c *cli.Context) (db.Config, error) {
	cfg := db.Config{URL: c.String(FlagDatabaseURL), MaxConns: 4}
	if cfg.URL == "" {
		return cfg, usageErr(fmt.Errorf("--%s (or STRATA_DATABASE_URL) is required", FlagDatabaseURL))
	}
	if cfg.HasPassword() && os.Getenv("STRATA_DATABASE_URL") != cfg.URL {
		return cfg, usageErr(fmt.Errorf("--%s carries a password on the command line, where other users can read it: "+
			"use --%s or set STRATA_DATABASE_URL instead", FlagDatabaseURL, FlagDatabasePasswordFile))
	}
	if path := c.String(FlagDatabasePasswordFile); path != "" {
		if err := config.CheckSecretFile(FlagDatabasePasswordFile, path); err != nil {
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

// OpenDatabase opens the store named by the database flags. When
// checkSchema is set it refuses a schema that is not current.
func OpenDatabase(c *cli.Context, checkSchema bool) (*db.Store, error) {
	cfg, err := DatabaseConfig(c)
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
			return nil, usageErr(fmt.Errorf("database %s: %w", cfg.Redacted(), err))
		}
	}
	return st, nil
}
