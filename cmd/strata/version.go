package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/buildinfo"
	"github.com/strata-hpc/strata/dcgm"
)

// An unstamped build names its module version and VCS revision.
func init() { version, commit = buildinfo.Fill(version, commit) }

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of strata",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "strata %s (commit %s, %s, %s/%s)\nGPU sample sources built in: %s\n",
				version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, strings.Join(dcgm.Sources(), ", "))
			return err
		},
	}
}
