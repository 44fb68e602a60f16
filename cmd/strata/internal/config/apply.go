package config

import (
	"context"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"os"

	"github.com/urfave/cli/v2"
)

// Error is a configuration file the commands refuse (it does not parse,
// has problems, or sets a flag to a value it does not take): the CLI exits
// with status 2.
type Error = inputerr.Error

// Loaded is the configuration file of this process and what was wrong
// with it (only `config check` runs with a file that has problems).
type Loaded struct {
	File *File
	Err  error
}

type loadedKey struct{}

// LoadedFrom returns what Start stored in ctx (nil: no configuration file).
func LoadedFrom(ctx context.Context) *Loaded {
	l, _ := ctx.Value(loadedKey{}).(*Loaded)
	return l
}

// FileFrom returns the configuration file Start stored in ctx (nil: none).
func FileFrom(ctx context.Context) *File {
	if l := LoadedFrom(ctx); l != nil {
		return l.File
	}
	return nil
}

// Start loads the configuration file once, from the app's Before hook:
// path, or DefaultPath when path is empty and that file exists (else there
// is no file). It stores the file in c.Context (LoadedFrom) and sets the
// global flags named in globals from it unless they were given. A file
// that cannot be read is an Error; its other problems are kept for Apply
// and Check.
func Start(c *cli.Context, path string, globals []string) error {
	if path == "" {
		if _, err := os.Stat(DefaultPath); err != nil {
			return nil
		}
		path = DefaultPath
	}
	f, err := Load(path)
	if f == nil {
		return Error{Err: err}
	}
	c.Context = context.WithValue(c.Context, loadedKey{}, &Loaded{File: f, Err: err})
	for _, name := range globals {
		if v, ok := f.Values[name]; ok && !c.IsSet(name) {
			if err := c.Set(name, v); err != nil {
				return Error{Err: fmt.Errorf("configuration %s: key %q: %w", path, name, err)}
			}
		}
	}
	return nil
}

// Apply sets every flag of the running command that was given neither on
// the command line nor through the environment from the configuration
// file. A file with problems stops every command but `config` and its
// subcommands, which report the problems themselves.
func Apply(c *cli.Context) error {
	l := LoadedFrom(c.Context)
	if l == nil || underConfig(c) {
		return nil
	}
	if l.Err != nil {
		return Error{Err: fmt.Errorf("%w\n(strata config check lists every problem)", l.Err)}
	}
	values := ValuesFor(l.File.Values, lineageNames(c), c.Command.Flags)
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		v, ok := values[name]
		if !ok || c.IsSet(name) {
			continue
		}
		if err := c.Set(name, v); err != nil {
			return Error{Err: fmt.Errorf("configuration %s: key %q = %q: %w", l.File.Path, name, v, err)}
		}
	}
	return nil
}

// underConfig reports whether c runs `strata config` or one of its
// subcommands.
func underConfig(c *cli.Context) bool {
	for _, a := range c.Lineage() {
		if a.Command != nil && a.Command.Name == "config" {
			return true
		}
	}
	return false
}

// Wrap makes every command of cmds (recursively) Apply the configuration
// file to its flags before it runs, then run its own Before hook.
func Wrap(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if err := Apply(c); err != nil {
				return err
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
		Wrap(cmd.Subcommands)
	}
	return cmds
}
