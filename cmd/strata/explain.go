package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/explain"
)

const (
	flagExplainJSON    = "json"
	flagExplainHistory = "history"
	flagExplainCluster = "cluster"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "what Strata decided for a job, when and why",
		ArgsUsage: "JOBID",
		Description: "Reads the audit trail the daemon (`strata run`) keeps in Postgres and tells the story of one\n" +
			"job: the latest decision (GPUs, parameter servers, start order, priority), the reasons in\n" +
			"words, the predicted start and completion, what was written to Slurm (or, in shadow mode,\n" +
			"what enforce mode would have written), what the comparison policies would have done, and\n" +
			"the history of earlier decisions. A read-only database role is enough.\n\n" +
			"Without a database (none configured, or it does not answer) and with a slurmrestd connection\n" +
			"(--slurm-url or SLURM_REST_URL, and the user's own SLURM_JWT from scontrol token), it gives the\n" +
			"short form instead, and says so: the job as Slurm holds it and what Strata last wrote to its\n" +
			"admin comment (the decision, why in reason codes and words, the planned start, a begin time\n" +
			"Strata set).",
		Flags: append(append([]cli.Flag{
			&cli.BoolFlag{Name: flagExplainJSON, Usage: "machine-readable output"},
			&cli.IntFlag{Name: flagExplainHistory, Value: 10, Usage: "earlier decisions to show"},
			&cli.StringFlag{Name: flagExplainCluster, Usage: "Slurm cluster name (when one database serves several)"},
		}, cliflags.Database()...), cliflags.Slurm()...),
		Action: explainAction,
	}
}

func explainAction(c *cli.Context) error {
	id, err := explain.ParseJobID(c.Args().First())
	if err != nil || c.NArg() != 1 {
		return exitError{code: 2, err: fmt.Errorf("usage: strata explain JOBID (%v)", orUsage(err))}
	}
	o := explain.Options{Cluster: c.String(flagExplainCluster), History: c.Int(flagExplainHistory),
		JSON: c.Bool(flagExplainJSON), Now: time.Now().UTC()}
	dbErr := explainFromDatabase(c, id, o)
	if dbErr == nil || c.String(cliflags.FlagSlurmURL) == "" && c.String(cliflags.FlagSlurmSocket) == "" {
		return dbErr // no slurmrestd to fall back to
	}
	cl, err := cliflags.ConnectSlurm(c, cliflags.WithoutPools)
	if err == nil {
		err = explain.ExplainFromSlurm(c.Context, c.App.Writer, cl, id, o, dbErr)
	}
	if err != nil {
		return fmt.Errorf("explain job %d: no database (%v), and the short form from slurmrestd failed: %w", id, dbErr, err)
	}
	return nil
}

// explainFromDatabase explains job id from the audit trail; an error when
// the database is not configured, does not answer or cannot be read.
func explainFromDatabase(c *cli.Context, id int64, o explain.Options) error {
	st, err := cliflags.OpenDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	if c.String(cliflags.FlagSlurmURL) != "" || c.String(cliflags.FlagSlurmSocket) != "" {
		// Slurm's record tells whether a time limit Strata lowered still
		// holds; without it, the audit trail does.
		if cl, err := cliflags.ConnectSlurm(c, cliflags.WithoutPools); err == nil {
			o.Slurm = cl
		}
	}
	return explain.Explain(c.Context, c.App.Writer, st, id, o)
}

func orUsage(err error) any {
	if err == nil {
		return "one job ID"
	}
	return err
}
