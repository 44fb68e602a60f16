package main

import (
	"fmt"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
)

// checkSiteNames refuses (exit 2, naming the key) a configuration that
// names an account or a QOS Slurm does not know. It asks only when the file names
// one and the cluster has accounting; an unreachable slurmrestd is logged
// and the check left to the next start (the daemon waits for slurmrestd).
func checkSiteNames(c *cli.Context, f *config.File, log zerolog.Logger) error {
	named := false
	if f != nil {
		for _, l := range f.Planner.Limits {
			named = named || l.Account != "" || l.QOS != ""
		}
	}
	if !named {
		return nil
	}
	cl, err := cliflags.ConnectSlurm(c)
	if err != nil {
		log.Warn().Err(err).Msg("accounts and QOS in [[planner.limits]] not checked against Slurm: slurmrestd not reached")
		return nil
	}
	if !cl.ServesAccounting() {
		return nil
	}
	accounts, qos, err := cl.SiteNames(c.Context)
	if err != nil {
		log.Warn().Err(err).Msg("accounts and QOS in [[planner.limits]] not checked against Slurm")
		return nil
	}
	if err := config.CheckSiteNames(f, accounts, qos); err != nil {
		return exitError{code: 2, err: fmt.Errorf("config: %w", err)}
	}
	return nil
}
