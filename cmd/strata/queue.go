package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/queue"
	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/planner"
)

const (
	queueFlagJSON     = "json"
	queueFlagParsable = "parsable2"
	queueFlagNoHeader = "noheader"
	queueFlagUser     = "user"
	queueFlagPart     = "partition"
	queueFlagStates   = "states"
	queueFlagJobs     = "jobs"
	queueFlagFormat   = "format"
	queueFlagStart    = "start"
	queueFlagPolicy   = "policy"
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
			&cli.StringSliceFlag{Name: queueFlagUser, Aliases: []string{"u"}, Usage: "only jobs of these users (like squeue -u)"},
			&cli.StringSliceFlag{Name: queueFlagPart, Aliases: []string{"p"}, Usage: "only jobs of these partitions"},
			&cli.StringSliceFlag{Name: queueFlagStates, Aliases: []string{"t"}, Usage: "only jobs in these states: PD, R, S or all"},
			&cli.StringSliceFlag{Name: queueFlagJobs, Aliases: []string{"j"}, Usage: "only these job IDs"},
			&cli.StringFlag{Name: queueFlagFormat, Aliases: []string{"o"},
				Usage: "squeue-style format: %i %P %j %u %t %T %b %D %Q %r %V %S %l %h (hint); %.N right-aligns to N; help lists the fields"},
			&cli.BoolFlag{Name: queueFlagStart, Usage: "pending jobs with the start time Strata predicts (runs --policy on the queue; writes nothing)"},
			&cli.StringFlag{Name: queueFlagPolicy, Value: "smd", Usage: "policy whose predicted starts --start shows"},
		}, cliflags.Slurm()...),
		Action: runQueue,
	}
}

func runQueue(c *cli.Context) error {
	if c.String(queueFlagFormat) == "help" {
		return queue.WriteFormatHelp(c.App.Writer)
	}
	cl, err := cliflags.ConnectSlurm(c)
	if err != nil {
		return err
	}
	snap, err := cl.Snapshot(c.Context)
	if err != nil {
		return fmt.Errorf("read queue: %w", err)
	}
	filter, format, err := queueSelection(c)
	if err != nil {
		return err
	}
	rows, w := filter.Apply(queue.Rows(snap.Jobs)), c.App.Writer
	switch {
	case c.Bool(queueFlagStart) || c.String(queueFlagFormat) != "":
		starts := queue.Starts{}
		if c.Bool(queueFlagStart) {
			if starts, err = predictedStarts(c, snap); err != nil {
				return err
			}
		}
		return queue.WriteFormat(w, format, rows, starts, !c.Bool(queueFlagNoHeader))
	case c.Bool(queueFlagJSON):
		return queue.WriteJSON(w, snap, rows)
	case c.Bool(queueFlagParsable):
		return queue.WriteParsable(w, rows, !c.Bool(queueFlagNoHeader))
	}
	cols := 0 // not a terminal: nothing is cut
	if term.Unwrap(w) == io.Writer(os.Stdout) {
		cols, _ = term.Width(os.Stdout)
	}
	return queue.WriteTable(w, rows, !c.Bool(queueFlagNoHeader), cols)
}

// queueSelection reads squeue's selection and format flags.
func queueSelection(c *cli.Context) (queue.Filter, queue.Format, error) {
	f, format, err := queue.Select(queue.Selection{
		Users: cliflags.SplitList(c.StringSlice(queueFlagUser)), Partitions: cliflags.SplitList(c.StringSlice(queueFlagPart)),
		States: cliflags.SplitList(c.StringSlice(queueFlagStates)), StatesSet: c.IsSet(queueFlagStates),
		Jobs: cliflags.SplitList(c.StringSlice(queueFlagJobs)), Format: c.String(queueFlagFormat), Start: c.Bool(queueFlagStart)})
	if err != nil {
		return f, format, usageError(err)
	}
	return f, format, nil
}

// predictedStarts runs the policy once on the snapshot with the
// configuration's [planner] settings; nothing is written.
func predictedStarts(c *cli.Context, snap *planner.Snapshot) (queue.Starts, error) {
	p, err := planner.NewPolicy(c.String(queueFlagPolicy), config.PlannerOptions(config.FileFrom(c.Context)))
	if err != nil {
		return nil, usageError(fmt.Errorf("--policy: %w", err))
	}
	return queue.PredictStarts(c.Context, p, snap)
}
