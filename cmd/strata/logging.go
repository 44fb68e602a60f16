package main

import (
	"io"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
)

// appLogger builds the process's logger in the app's Before: the level of
// --log-level (flag, environment or configuration file), else the command's
// default (cliflags.DefaultLogLevel: client commands log warnings only
// unless -v is given before the command's name).
func appLogger(c *cli.Context, stderr io.Writer) (zerolog.Logger, error) {
	level := c.String(cliflags.FlagLogLevel)
	if level == "" {
		level = cliflags.DefaultLogLevel(c.Args().Slice(), c.Bool(cliflags.FlagVerbose))
	}
	return cliflags.NewLogger(level, c.String(cliflags.FlagLogFormat), stderr)
}

// withVerbose gives every command (and subcommand) the -v flag, so that it
// may follow the command's name (`strata queue -v`), and raises the logger
// to info when it is given and --log-level is not set.
func withVerbose(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		if !hasFlag(cmd.Flags, cliflags.FlagVerbose) {
			cmd.Flags = append(cmd.Flags, cliflags.VerboseFlag())
		}
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if c.Bool(cliflags.FlagVerbose) && c.String(cliflags.FlagLogLevel) == "" {
				if lg := zerolog.Ctx(c.Context); lg.GetLevel() > zerolog.InfoLevel {
					c.Context = lg.Level(zerolog.InfoLevel).WithContext(c.Context)
				}
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
		withVerbose(cmd.Subcommands)
	}
	return cmds
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
