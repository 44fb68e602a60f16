package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/db"
)

const (
	flagExplainJSON    = "json"
	flagExplainHistory = "history"
	flagExplainCluster = "cluster"
)

// decisionSource is what explain reads; *db.Store implements it.
type decisionSource interface {
	DecisionsForJob(ctx context.Context, jobID int64, cluster string, limit int) ([]db.StoredDecision, error)
	LatestCycle(ctx context.Context, cluster string) (db.Cycle, error)
}

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
		}, databaseFlags()...),
		Action: explainAction,
	}
}

func explainAction(c *cli.Context) error {
	id, err := parseJobID(c.Args().First())
	if err != nil || c.NArg() != 1 {
		return exitError{code: 2, err: fmt.Errorf("usage: strata explain JOBID (%v)", orUsage(err))}
	}
	st, err := openDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	return explain(c.Context, c.App.Writer, st, id, explainOpts{Cluster: c.String(flagExplainCluster),
		History: c.Int(flagExplainHistory), JSON: c.Bool(flagExplainJSON), Now: time.Now().UTC()})
}

func orUsage(err error) any {
	if err == nil {
		return "one job ID"
	}
	return err
}

// parseJobID accepts Slurm's forms "123", "123_4" (array task: the task's
// own job ID is needed) and "123.batch" (step: the job).
func parseJobID(s string) (int64, error) {
	if i := strings.IndexAny(s, ".+"); i >= 0 {
		s = s[:i]
	}
	if strings.Contains(s, "_") {
		return 0, fmt.Errorf("job %q is an array task: give its own job ID (squeue -o %%A)", s)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("job ID %q: want a number", s)
	}
	return id, nil
}

type explainOpts struct {
	Cluster string
	History int
	JSON    bool
	Now     time.Time
}

// explanation is the --json form.
type explanation struct {
	JobID     int64               `json:"job_id"`
	Found     bool                `json:"found"`
	Latest    *db.StoredDecision  `json:"latest,omitempty"`
	Reasons   []reasonText        `json:"reasons,omitempty"`
	History   []db.StoredDecision `json:"history,omitempty"`
	LastCycle *db.Cycle           `json:"last_cycle,omitempty"`
}

type reasonText struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

func explain(ctx context.Context, w io.Writer, src decisionSource, id int64, o explainOpts) error {
	ds, err := src.DecisionsForJob(ctx, id, o.Cluster, max(1, o.History+1))
	if err != nil {
		return fmt.Errorf("explain job %d: %w", id, err)
	}
	ex := explanation{JobID: id, Found: len(ds) > 0}
	if last, err := src.LatestCycle(ctx, o.Cluster); err == nil {
		ex.LastCycle = &last
	} else if !errors.Is(err, db.ErrNotFound) {
		return fmt.Errorf("explain job %d: %w", id, err)
	}
	if len(ds) > 0 {
		ex.Latest, ex.History = &ds[0], ds[1:]
		for _, r := range ds[0].Reasons {
			ex.Reasons = append(ex.Reasons, reasonText{string(r), r.Describe()})
		}
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	return writeExplanation(w, ex, o.Now)
}
