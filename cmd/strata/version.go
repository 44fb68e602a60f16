package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/buildinfo"
	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/slurm"
)

// An unstamped build names its module version and VCS revision.
func init() { version, commit = buildinfo.Fill(version, commit) }

const versionFlagSlurm = "slurm"

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of strata (--slurm: and the slurmrestd API versions offered and chosen)",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: versionFlagSlurm, Usage: "also connect to slurmrestd and print the REST API versions it offers, those strata speaks and the one it uses"},
		}, cliflags.Slurm()...),
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "strata %s (commit %s, %s, %s/%s)\nGPU sample sources built in: %s\n",
				version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, strings.Join(dcgm.Sources(), ", "))
			if err != nil || !c.Bool(versionFlagSlurm) {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "slurmrestd API versions strata speaks: %s\n", strings.Join(slurm.SupportedVersions(), ", "))
			if err != nil {
				return err
			}
			cl, err := cliflags.ConnectSlurm(c, cliflags.WithoutPools)
			if err != nil {
				return err
			}
			where := cliflags.SlurmConfig(c).URL
			if s := c.String(cliflags.FlagSlurmSocket); s != "" {
				where = s
			}
			_, err = fmt.Fprintf(c.App.Writer, "slurmrestd %s offers: %s\nslurmrestd API version used: %s\n",
				where, strings.Join(cl.ServedVersions(), ", "), cl.APIVersion())
			return err
		},
	}
}
