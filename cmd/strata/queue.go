package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/queue"
)

const (
	queueFlagJSON     = "json"
	queueFlagParsable = "parsable2"
	queueFlagNoHeader = "noheader"
)

func queueCommand() *cli.Command {
	return &cli.Command{
		Name:  "queue",
		Usage: "show the Slurm queue as Strata reads it, with the strata: hints parsed",
		Description: "Reads pending and running jobs through slurmrestd (like squeue) and shows, per job,\n" +
			"its GPU request and its strata: hint, or the hint's parse error in plain words.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: queueFlagJSON, Usage: "machine-readable JSON (jobs with parsed hints)"},
			&cli.BoolFlag{Name: queueFlagParsable, Aliases: []string{"P"}, Usage: "pipe-separated output (like sacct -P)"},
			&cli.BoolFlag{Name: queueFlagNoHeader, Aliases: []string{"n"}, Usage: "omit the header line"},
		}, slurmFlags()...),
		Action: runQueue,
	}
}

func runQueue(c *cli.Context) error {
	cl, err := connectSlurm(c)
	if err != nil {
		return err
	}
	snap, err := cl.Snapshot(c.Context)
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
	}
	rows, w := queue.Rows(snap.Jobs), c.App.Writer
	switch {
	case c.Bool(queueFlagJSON):
		return queue.WriteJSON(w, snap, rows)
	case c.Bool(queueFlagParsable):
		return queue.WriteParsable(w, rows, !c.Bool(queueFlagNoHeader))
	}
	return queue.WriteTable(w, rows, !c.Bool(queueFlagNoHeader))
}
