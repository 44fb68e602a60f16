package main

import (
	"fmt"
	"runtime"

	"github.com/strata-hpc/strata/cmd/strata/internal/buildinfo"
	"github.com/urfave/cli/v2"
)

// An unstamped build names its module version and VCS revision.
func init() { version, commit = buildinfo.Fill(version, commit) }

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of strata",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "strata %s (commit %s, %s, %s/%s)\n",
				version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
