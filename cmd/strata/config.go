package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
)

// The configuration file is TOML (package config): every flag is also a
// key, and [planner] holds the planner's settings. Precedence: flag >
// environment > file > default.

type configKey struct{}

// loaded is the configuration file of this process and what was wrong
// with it (only `config check` runs with a file that has problems).
type loaded struct {
	file *config.File
	err  error
}

// configFromContext returns the configuration loaded by the app's Before
// hook (nil when there is none).
func configFromContext(ctx context.Context) *config.File {
	l, _ := ctx.Value(configKey{}).(*loaded)
	if l == nil {
		return nil
	}
	return l.file
}

// loadGlobalConfig is called once from the app's Before hook.
func loadGlobalConfig(c *cli.Context) error {
	path := c.String(flagConfig)
	if path == "" {
		if _, err := os.Stat(config.DefaultPath); err != nil {
			return nil
		}
		path = config.DefaultPath
	}
	f, err := config.Load(path)
	if f == nil {
		return exitError{code: 2, err: err}
	}
	c.Context = context.WithValue(c.Context, configKey{}, &loaded{file: f, err: err})
	// Global flags (log level and format) come from the file too.
	for _, name := range []string{flagLogLevel, flagLogFormat} {
		if v, ok := f.Values[name]; ok && !c.IsSet(name) {
			if err := c.Set(name, v); err != nil {
				return exitError{code: 2, err: fmt.Errorf("configuration %s: key %q: %w", path, name, err)}
			}
		}
	}
	return nil
}

// applyConfig sets every flag of the running command that was given neither
// on the command line nor through the environment from the configuration
// file. A file with problems stops every command but `config check`.
func applyConfig(c *cli.Context) error {
	l, _ := c.Context.Value(configKey{}).(*loaded)
	if l == nil {
		return nil
	}
	if underConfig(c) {
		return nil
	}
	if l.err != nil {
		return exitError{code: 2, err: fmt.Errorf("%w\n(strata config check lists every problem)", l.err)}
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		v, ok := l.file.Values[name]
		if !ok || c.IsSet(name) {
			continue
		}
		if err := c.Set(name, v); err != nil {
			return exitError{code: 2, err: fmt.Errorf("configuration %s: key %q = %q: %w", l.file.Path, name, v, err)}
		}
	}
	return nil
}

// underConfig reports whether c runs `strata config` or one of its
// subcommands (they report the file's problems themselves).
func underConfig(c *cli.Context) bool {
	for _, a := range c.Lineage() {
		if a.Command != nil && a.Command.Name == "config" {
			return true
		}
	}
	return false
}

// withConfig makes every command (recursively) apply the configuration file
// to its flags before it runs.
func withConfig(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if err := applyConfig(c); err != nil {
				return err
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
		withConfig(cmd.Subcommands)
	}
	return cmds
}

// validators check a command's options exactly as the command does when it
// starts, from a context built from the file (config.Context).
var validators = map[string]config.Validator{
	"run": func(c *cli.Context, f *config.File) error { _, err := runOptionsFrom(c, f); return err },
	"plan": func(c *cli.Context, f *config.File) error {
		o := cycleOptionsFrom(c, f)
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
	l, _ := c.Context.Value(configKey{}).(*loaded)
	if l == nil {
		return exitError{code: 2, err: fmt.Errorf("no configuration file: pass --config FILE or create %s", config.DefaultPath)}
	}
	f := l.file
	if errs := config.Check(c.App, f, l.err, validators); len(errs) > 0 {
		return exitError{code: 2, err: fmt.Errorf("configuration %s is invalid (%d problems):\n%w", f.Path, len(errs), errors.Join(errs...))}
	}
	_, err := fmt.Fprintf(c.App.Writer, "%s: OK (%d keys)\n", f.Path, len(f.Values)+f.Planner.Len())
	return err
}
