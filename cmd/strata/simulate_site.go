package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/simulate"
	"github.com/strata-hpc/strata/sim"
)

// siteIgnores are simulate's flags that shape a trace or its output in
// ways a site simulation does not: refused rather than ignored.
var siteIgnores = []string{"users", "dishonest", "knowledge", "synth-bb", "synth-bb-catalog", "synth-deadlines", "ps-share",
	"speed-error", "speed-noise", "plot", "jobs", "skip-bad", "label"}

// runSiteSimulate is `strata simulate --from-slurmdbd`: the site's own
// history replayed on its own nodes (docs/operations.md § Before you
// enforce).
func runSiteSimulate(c *cli.Context, o simulate.Options, out simulate.Output) error {
	if o.Trace != "" || o.Cluster != "" {
		return usageError(errors.New("--from-slurmdbd reads the jobs and the cluster from Slurm: leave out --trace and --cluster"))
	}
	for _, f := range siteIgnores {
		if c.IsSet(f) {
			return usageError(fmt.Errorf("--%s does not apply to --from-slurmdbd (the site's jobs are replayed as they were; write them with --write-trace and run that trace)", f))
		}
	}
	from, to, err := simulate.ParseSitePeriod(c.String(simulate.FlagStartTime), c.String(simulate.FlagEndTime), time.Now(), time.Local)
	if err != nil {
		return err
	}
	if !c.IsSet("predictor") {
		o.Predictor = sim.PredictorHistory // jobs without a hint are timed from history, as the daemon times them
	}
	var parts []string
	for _, p := range c.StringSlice(simulate.FlagPartition) {
		for _, q := range strings.Split(p, ",") {
			if q = strings.TrimSpace(q); q != "" {
				parts = append(parts, q)
			}
		}
	}
	days := c.Int(simulate.FlagHistoryDays)
	if days < 0 {
		return usageError(errors.New("--history-days must be ≥ 0"))
	}
	cl, err := cliflags.ConnectSlurm(c)
	if err != nil {
		return err
	}
	so := simulate.SiteOptions{Options: o, From: from, To: to, Partitions: parts, SlurmCluster: c.String(simulate.FlagSlurmCluster),
		Prior: time.Duration(days) * 24 * time.Hour}
	return simulate.RunSite(c.Context, cl, so, out, logger(c))
}
