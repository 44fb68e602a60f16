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
			"the history of earlier decisions. A read-only database role is enough.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: flagExplainJSON, Usage: "machine-readable output"},
			&cli.IntFlag{Name: flagExplainHistory, Value: 10, Usage: "earlier decisions to show"},
			&cli.StringFlag{Name: flagExplainCluster, Usage: "Slurm cluster name (when one database serves several)"},
		}, cliflags.Database()...),
		Action: explainAction,
	}
}

func explainAction(c *cli.Context) error {
	id, err := explain.ParseJobID(c.Args().First())
	if err != nil || c.NArg() != 1 {
		return exitError{code: 2, err: fmt.Errorf("usage: strata explain JOBID (%v)", orUsage(err))}
	}
	st, err := cliflags.OpenDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	return explain.Explain(c.Context, c.App.Writer, st, id, explain.Options{Cluster: c.String(flagExplainCluster),
		History: c.Int(flagExplainHistory), JSON: c.Bool(flagExplainJSON), Now: time.Now().UTC()})
}

func orUsage(err error) any {
	if err == nil {
		return "one job ID"
	}
	return err
}
