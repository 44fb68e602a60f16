// Package cliargs lets flags follow arguments, as Slurm's commands and most
// CLIs allow (`strata explain 102 --json`): urfave/cli stops reading flags
// at the first argument, so Interspersed moves a command's flags in front of
// its arguments before the app parses them.
package cliargs

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Interspersed returns args (os.Args form) with the flags that follow the
// arguments of the command being run moved before those arguments. Flag
// values stay with their flag; "--" ends flags as usual; unknown flags are
// moved too, so that the app reports them.
func Interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := app.Flags
	cmds := app.Commands
	// Global flags, then the command path (command, subcommand, ...).
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			return append(out, rest...)
		}
		if isFlag(a) {
			n := flagLen(flags, rest)
			out, rest = append(out, rest[:n]...), rest[n:]
			continue
		}
		cmd := find(cmds, a)
		if cmd == nil {
			break
		}
		out, rest = append(out, a), rest[1:]
		flags, cmds = cmd.Flags, cmd.Subcommands
		if len(cmds) == 0 {
			break
		}
	}
	var fl, pos []string
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			pos = append(pos, rest...)
			break
		}
		if isFlag(a) {
			n := flagLen(flags, rest)
			fl, rest = append(fl, rest[:n]...), rest[n:]
			continue
		}
		pos, rest = append(pos, a), rest[1:]
	}
	out = append(out, fl...)
	if len(pos) > 0 && pos[0] != "--" && len(fl) > 0 {
		out = append(out, "--") // what follows is arguments only, even if it looks like a flag value
	}
	return append(out, pos...)
}

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "-" }

// flagLen is how many tokens the flag at rest[0] takes: 1 for a boolean, a
// --name=value, an unknown flag or the last token, else 2.
func flagLen(flags []cli.Flag, rest []string) int {
	a := rest[0]
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") || len(rest) == 1 {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, ok := f.(*cli.BoolFlag); ok {
				return 1
			}
			return 2
		}
	}
	return 1
}

func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// OnUsageError returns the handler that turns a flag the command does not
// know (or a bad value) into a one-line error, wrapped by wrap (which gives
// it its exit status), instead of the whole help on stdout.
func OnUsageError(wrap func(error) error) cli.OnUsageErrorFunc {
	return func(c *cli.Context, err error, _ bool) error {
		var names []string
		for _, a := range c.Lineage() { // the command, its parents, ..., the app
			if a.Command != nil && a.Command.Name != "" && a.Command.Name != c.App.Name &&
				(len(names) == 0 || names[len(names)-1] != a.Command.Name) {
				names = append(names, a.Command.Name)
			}
		}
		name := c.App.Name
		for i := len(names) - 1; i >= 0; i-- {
			name += " " + names[i]
		}
		return wrap(fmt.Errorf("%w (see `%s --help`)", err, name))
	}
}

// WithUsageErrors sets OnUsageError on every command, recursively.
func WithUsageErrors(cmds []*cli.Command, wrap func(error) error) []*cli.Command {
	h := OnUsageError(wrap)
	for _, c := range cmds {
		c.OnUsageError = h
		WithUsageErrors(c.Subcommands, wrap)
	}
	return cmds
}
