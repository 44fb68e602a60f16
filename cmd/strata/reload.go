package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
)

// newReloader returns the SIGHUP handler of `strata run`: it re-reads the
// configuration file and returns the options as a fresh start would read
// them, except that keys pinned at start by a flag or an environment
// variable keep their value, and keys that are not reloadable keep the
// value they started with. A reloadable key the file no longer sets returns
// to its default. The [planner] section is re-read too. Without a
// configuration file it returns the start-up options.
//
// The new values go through the same flag definitions and the same
// runOptionsFrom as at start-up (config.Context), so a flag is defined and
// read in one place.
func newReloader(c *cli.Context) func() (daemon.Options, error) {
	cfg := configFromContext(c.Context)
	pinned := map[string]string{}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if cfg == nil || !slices.Contains(reloadable, name) || pinnedAtStart(c, f, cfg) {
			pinned[name] = currentValue(c, f)
		}
	}
	return func() (daemon.Options, error) {
		if cfg == nil {
			return runOptionsFrom(c, nil)
		}
		fresh, err := config.Load(cfg.Path)
		if err != nil {
			return daemon.Options{}, err
		}
		ctx, err := config.Context(c.App, c.Command.Flags, fresh.Values, pinned, nil)
		if err != nil {
			return daemon.Options{}, fmt.Errorf("configuration %s: %w", cfg.Path, err)
		}
		return runOptionsFrom(ctx, fresh)
	}
}

// pinnedAtStart reports whether flag f was given on the command line or by
// the environment (then the file does not override it).
func pinnedAtStart(c *cli.Context, f cli.Flag, cfg *config.File) bool {
	if config.FromEnv(f) {
		return true
	}
	name := f.Names()[0]
	v, inFile := cfg.Values[name]
	return c.IsSet(name) && (!inFile || v != currentValue(c, f))
}

// currentValue renders a flag's value as the flattened file would.
func currentValue(c *cli.Context, f cli.Flag) string {
	if _, ok := f.(*cli.StringSliceFlag); ok {
		return strings.Join(c.StringSlice(f.Names()[0]), ",")
	}
	return fmt.Sprint(c.Value(f.Names()[0]))
}
