package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/hint"
	"github.com/strata-hpc/strata/planner"
)

func hintCommand() *cli.Command {
	return &cli.Command{
		Name:  "hint",
		Usage: "check the strata: hints of a job comment",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "parse a --comment (or just its strata: segment) and print the hints",
			ArgsUsage: "'strata: model=resnet50 batch=64 ...'",
			Description: "Exit status 0 when the hint is valid, 2 with the field, the bad value and the fix when\n" +
				"it is not. A comment without a strata: segment is valid (the job is planned by priority only).",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the parsed hints as JSON"}},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageError(errors.New("hint check: want exactly one argument, the comment (quote it)"))
				}
				return hint.Check(c.App.Writer, c.Args().First(), c.Bool("json"), planner.DefaultCatalog())
			},
		}},
	}
}
