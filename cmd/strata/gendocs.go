package main

import (
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/clidoc"
)

// genDocsCommand writes the manual page and the bash and zsh completions
// generated from this command tree (hidden: `make package` runs it).
func genDocsCommand() *cli.Command {
	return &cli.Command{
		Name:   "gen-docs",
		Hidden: true,
		Usage:  "write strata.1, strata.bash and _strata (zsh) into --dir, for packaging",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "output directory", Required: true}},
		Action: func(c *cli.Context) error {
			return clidoc.Write(c.App, c.String("dir"), clidoc.PackageFiles)
		},
	}
}
