package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Reloader returns a command's SIGHUP handler: it re-reads the
// configuration file f and returns the options as a fresh start would read
// them (read, the same function as at start-up, over a context from
// Context), except that keys pinned at start by a flag or an environment
// variable keep their value, and keys not in reloadable keep the value they
// started with. A reloadable key the file no longer sets returns to its
// default. Without a configuration file (f nil) it returns the start-up
// options.
func Reloader[T any](c *cli.Context, f *File, reloadable []string, read func(*cli.Context, *File) (T, error)) func() (T, error) {
	pinned := map[string]string{}
	for _, fl := range c.Command.Flags {
		name := fl.Names()[0]
		if f == nil || !slices.Contains(reloadable, name) || pinnedAtStart(c, fl, f) {
			pinned[name] = currentValue(c, fl)
		}
	}
	return func() (T, error) {
		if f == nil {
			return read(c, nil)
		}
		var zero T
		fresh, err := Load(f.Path)
		if err != nil {
			return zero, err
		}
		ctx, err := Context(c.App, c.Command.Flags, ValuesFor(fresh.Values, lineageNames(c), c.Command.Flags), pinned, nil)
		if err != nil {
			return zero, fmt.Errorf("configuration %s: %w", f.Path, err)
		}
		return read(ctx, fresh)
	}
}

// pinnedAtStart reports whether flag fl was given on the command line or by
// the environment (then the file does not override it).
func pinnedAtStart(c *cli.Context, fl cli.Flag, f *File) bool {
	if fromEnv(fl) {
		return true
	}
	name := fl.Names()[0]
	v, inFile := f.Values[name]
	return c.IsSet(name) && (!inFile || v != currentValue(c, fl))
}

// currentValue renders a flag's value as the flattened file would.
func currentValue(c *cli.Context, fl cli.Flag) string {
	if _, ok := fl.(*cli.StringSliceFlag); ok {
		return strings.Join(c.StringSlice(fl.Names()[0]), ",")
	}
	return fmt.Sprint(c.Value(fl.Names()[0]))
}
