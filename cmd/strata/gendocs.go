package main

import (
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/clidoc"
)

// manExtra ends the manual page: where the package puts things.
const manExtra = `# FILES

*/etc/strata/strata.toml*
: the configuration (TOML; every flag is a key); */etc/strata/strata.toml.example* is the documented example

*/var/lib/strata*
: the collector's spool (StateDirectory of strata-collect.service)

*/usr/lib/systemd/system/strata.service*, *strata-collect.service*, *strata-serve.service*
: the daemon, the GPU collector and the web page; *strata-retention.timer* and *strata-report-refresh.timer* run **strata db retention** and **strata report refresh**

*/usr/share/strata/*
: a Grafana dashboard and Prometheus alert rules for the daemon's /metrics

# SEE ALSO

*/usr/share/doc/strata/operations.md* (install, configuration, metrics, packages), *telemetry.md*, *reports.md*, *hints.md*, *slurm.md*
`

// genDocsCommand writes the manual page and the bash and zsh completions
// generated from this command tree (hidden: `make package` runs it).
func genDocsCommand() *cli.Command {
	return &cli.Command{
		Name:   "gen-docs",
		Hidden: true,
		Usage:  "write strata.1, strata.bash and _strata (zsh) into --dir, for packaging",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "output directory", Required: true}},
		Action: func(c *cli.Context) error {
			return clidoc.Write(c.App, c.String("dir"), manExtra)
		},
	}
}
