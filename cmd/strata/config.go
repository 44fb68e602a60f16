package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
)

// The configuration file is TOML (package config): every flag is also a
// key, and [planner] holds the planner's settings. Precedence: flag >
// environment > file > default. The app's Before hook loads it
// (config.Start), every command applies it to its flags (config.Wrap), and
// `strata config check` lists its problems (config.Check).

// validators check a command's options exactly as the command does when it
// starts, from a context built from the file (config.Context).
var validators = map[string]config.Validator{
	"run": func(c *cli.Context, f *config.File) error { _, err := runOptionsFrom(c, f); return err },
	"plan": func(c *cli.Context, f *config.File) error {
		o := cliflags.CycleOptions(c, f)
		return o.Validate()
	},
}

const flagConfigConnect = "connect"

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "check the configuration file",
		Subcommands: []*cli.Command{{
			Name:  "check",
			Usage: "validate the configuration file as the commands would read it; list every problem",
			Description: "Reads --config (default " + config.DefaultPath + ") and reports, all at once: syntax\n" +
				"errors, unknown keys, values that do not parse or are out of range for the command\n" +
				"that reads them (the same checks as strata run at start-up), [planner] keys, secrets\n" +
				"written in the file (tokens, passwords, a password inside database.url), and *-file\n" +
				"secrets that are missing or readable by others. A flag's key may be written in its\n" +
				"command's section: [collect] source is collect's --source. With --connect it also\n" +
				"connects to slurmrestd and Postgres as strata run would (the token, the schema).\n" +
				"Exit 0 when valid, 2 when not, 1 when a --connect check fails.",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: flagConfigConnect, Usage: "also connect to slurmrestd (read the queue) and Postgres (check the schema) with the file's settings"},
			},
			Action: configCheck,
		}},
	}
}

func configCheck(c *cli.Context) error {
	l := config.LoadedFrom(c.Context)
	if l == nil {
		return exitError{code: 2, err: fmt.Errorf("no configuration file: pass --config FILE or create %s", config.DefaultPath)}
	}
	f := l.File
	if errs := config.Check(c.App, f, l.Err, validators); len(errs) > 0 {
		return exitError{code: 2, err: fmt.Errorf("configuration %s is invalid (%s):\n%w", f.Path, plural(len(errs), "problem"), errors.Join(errs...))}
	}
	keys := plural(len(f.Values)+f.Planner.Len(), "key")
	if !c.Bool(flagConfigConnect) {
		_, err := fmt.Fprintf(c.App.Writer, "%s: OK (%s; not connected: --connect also tries slurmrestd and Postgres)\n", f.Path, keys)
		return err
	}
	if _, err := fmt.Fprintf(c.App.Writer, "%s: OK (%s)\n", f.Path, keys); err != nil {
		return err
	}
	return connectCheck(c, f)
}

// plural is "1 problem", "2 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// connectCheck connects to slurmrestd and Postgres with the settings the
// file gives strata run, reports each on its own line, and fails (status
// 1) when either does not answer.
func connectCheck(c *cli.Context, f *config.File) error {
	var run *cli.Command
	for _, cmd := range c.App.Commands {
		if cmd.Name == "run" {
			run = cmd
		}
	}
	if run == nil {
		return errors.New("config check --connect: no run command")
	}
	rc, err := config.Context(c.App, run.Flags, config.ValuesFor(f.Values, []string{run.Name}, run.Flags), nil, nil)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	ctx, cancel := context.WithTimeout(c.Context, 2*time.Minute)
	defer cancel()
	rc.Context = ctx
	var errs []error
	if err := checkSlurm(c.App.Writer, rc); err != nil {
		errs = append(errs, err)
	}
	if err := checkDatabase(c.App.Writer, rc); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func checkSlurm(w io.Writer, rc *cli.Context) error {
	cfg := cliflags.SlurmConfig(rc)
	cl, err := cliflags.ConnectSlurm(rc, cliflags.WithoutPools)
	if err == nil {
		s, serr := cl.Snapshot(rc.Context)
		if serr == nil {
			_, err = fmt.Fprintf(w, "slurmrestd %s: OK (API %s, %d jobs, %d nodes)\n", cfg.URL, cl.APIVersion(), len(s.Jobs), len(s.Nodes))
			return err
		}
		err = serr
	}
	return fmt.Errorf("slurmrestd %s: %w", cfg.URL, err)
}

func checkDatabase(w io.Writer, rc *cli.Context) error {
	if rc.String(cliflags.FlagDatabaseURL) == "" {
		_, err := fmt.Fprintln(w, "postgres: not configured (database.url); skipped")
		return err
	}
	cfg, err := cliflags.DatabaseConfig(rc)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	st, err := cliflags.OpenDatabase(rc, true)
	if err == nil {
		defer st.Close()
		if err = st.Ping(rc.Context); err == nil {
			v, verr := st.SchemaVersion(rc.Context)
			if verr == nil {
				_, err = fmt.Fprintf(w, "postgres %s: OK (schema %d)\n", cfg.Redacted(), v)
				return err
			}
			err = verr
		}
	}
	// Not answering, or a schema behind, is a failure (status 1), not
	// invalid input: %v drops OpenDatabase's usage status.
	return fmt.Errorf("postgres %s: %v", cfg.Redacted(), err)
}
