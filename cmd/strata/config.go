package main

import (
	"errors"
	"fmt"

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

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "check the configuration file",
		Subcommands: []*cli.Command{{
			Name:  "check",
			Usage: "validate the configuration file as the commands would read it; list every problem",
			Description: "Reads --config (default " + config.DefaultPath + ") and reports, all at once: syntax\n" +
				"errors, unknown keys, values that do not parse or are out of range for the command\n" +
				"that reads them (the same checks as `strata run` at start-up), [planner] keys, secrets\n" +
				"written in the file (tokens, passwords, a password inside database.url), and *-file\n" +
				"secrets that are missing or readable by others. Exit 0 when valid, 2 when not.",
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
		return exitError{code: 2, err: fmt.Errorf("configuration %s is invalid (%d problems):\n%w", f.Path, len(errs), errors.Join(errs...))}
	}
	_, err := fmt.Fprintf(c.App.Writer, "%s: OK (%d keys)\n", f.Path, len(f.Values)+f.Planner.Len())
	return err
}
