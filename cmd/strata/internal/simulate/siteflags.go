package simulate

import "github.com/urfave/cli/v2"

// Site simulation flag names (strata simulate --from-slurmdbd).
const (
	FlagFromSlurmdbd = "from-slurmdbd"
	FlagStartTime    = "starttime"
	FlagEndTime      = "endtime"
	FlagPartition    = "partition"
	FlagSlurmCluster = "slurm-cluster"
	FlagHistoryDays  = "history-days"
)

// SiteFlags are the flags of a site simulation, beside Flags (the
// simulation's) and the Slurm connection's.
func SiteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: FlagFromSlurmdbd, Usage: "what would Strata do on this cluster: replay the jobs that ended in the period (slurmdbd, through slurmrestd) on the site's own nodes, Slurm alone against --policy (default smd), and report the change in waiting time and JCT per partition and user"},
		&cli.StringFlag{Name: FlagStartTime, Aliases: []string{"S"}, Value: "now-30days", Usage: "with --from-slurmdbd: jobs that ended after this time (sacct's forms: now-30days, 2026-11-01, 11/01, ...)"},
		&cli.StringFlag{Name: FlagEndTime, Aliases: []string{"E"}, Value: "now", Usage: "with --from-slurmdbd: jobs that ended up to this time (same forms as --starttime)"},
		&cli.StringSliceFlag{Name: FlagPartition, Usage: "with --from-slurmdbd: only jobs of these partitions (comma-separated or repeated; default: all)"},
		&cli.IntFlag{Name: FlagHistoryDays, Value: 90, Usage: "with --from-slurmdbd: `DAYS` of completed jobs before --starttime that the history predictor knows from the start, as the daemon reads 90 (0: it learns from the period's jobs only)"},
		&cli.StringFlag{Name: FlagSlurmCluster, Usage: "with --from-slurmdbd: slurmdbd's cluster name (default: every cluster slurmdbd records)"},
	}
}
