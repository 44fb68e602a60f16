package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/planner"
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

// queueRow is one job with its hint, as `strata queue` shows it.
type queueRow struct {
	planner.Job
	HasHint   bool           `json:"has_hint"`
	Hints     *planner.Hints `json:"hints,omitempty"`
	HintError string         `json:"hint_error,omitempty"`
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
	rows := make([]queueRow, 0, len(snap.Jobs))
	for _, j := range snap.Jobs {
		r := queueRow{Job: j}
		h, ok, err := planner.ParseHints(j.Comment)
		r.HasHint = ok
		switch {
		case err != nil:
			r.HintError = err.Error()
		case ok:
			r.Hints = &h
		}
		rows = append(rows, r)
	}
	w := c.App.Writer
	switch {
	case c.Bool(queueFlagJSON):
		return writeQueueJSON(w, snap, rows)
	case c.Bool(queueFlagParsable):
		return writeQueueParsable(w, rows, !c.Bool(queueFlagNoHeader))
	}
	return writeQueueTable(w, rows, !c.Bool(queueFlagNoHeader))
}

func writeQueueJSON(w io.Writer, snap *planner.Snapshot, rows []queueRow) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		SnapshotID string         `json:"snapshot_id"`
		Now        time.Time      `json:"now"`
		Cluster    string         `json:"cluster"`
		Nodes      []planner.Node `json:"nodes"`
		Jobs       []queueRow     `json:"jobs"`
	}{snap.ID, snap.Now, snap.Cluster, snap.Nodes, rows})
}

var queueHeader = []string{"JOBID", "PARTITION", "NAME", "USER", "ST", "GPUS", "PRIORITY", "HINT"}

func queueFields(r queueRow, width int) []string {
	return []string{strconv.FormatInt(r.ID, 10), r.Partition, queueClip(r.Name, width), queueClip(r.User, width),
		stateCode(r.State), gpuShape(r.Job), strconv.FormatInt(r.Priority, 10), hintText(r, 4*width)}
}

func writeQueueTable(w io.Writer, rows []queueRow, header bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, strings.Join(queueHeader, "\t"))
	}
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(queueFields(r, 12), "\t"))
	}
	return tw.Flush()
}

func writeQueueParsable(w io.Writer, rows []queueRow, header bool) error {
	if header {
		if _, err := fmt.Fprintln(w, strings.Join(queueHeader, "|")); err != nil {
			return err
		}
	}
	for _, r := range rows {
		f := queueFields(r, 0)
		for i := range f {
			f[i] = strings.ReplaceAll(f[i], "|", "/")
		}
		if _, err := fmt.Fprintln(w, strings.Join(f, "|")); err != nil {
			return err
		}
	}
	return nil
}

// stateCode is squeue's compact state (PD, R, S, CG, ...).
func stateCode(s planner.JobState) string {
	switch s {
	case planner.JobPending:
		return "PD"
	case planner.JobRunning:
		return "R"
	case planner.JobSuspended:
		return "S"
	}
	return string(s)
}

// gpuShape renders the GPU request: "4", "2x4" (nodes × per node),
// "3/job" (--gpus), with ":type" when typed; "0" without GPUs.
func gpuShape(j planner.Job) string {
	s := strconv.Itoa(j.GPUs())
	switch {
	case j.GPUsPerJob > 0:
		s = strconv.Itoa(j.GPUsPerJob) + "/job"
	case j.Nodes > 1 && j.GPUsPerNode > 0:
		s = fmt.Sprintf("%dx%d", j.Nodes, j.GPUsPerNode)
	}
	if j.GPUType != "" {
		s += ":" + j.GPUType
	}
	return s
}

// hintText is the HINT column: the strata: segment as written, the parse
// error in plain words, or "-" without a hint.
func hintText(r queueRow, width int) string {
	switch {
	case r.HintError != "":
		return "ERROR " + r.HintError
	case !r.HasHint:
		return "-"
	}
	seg, _ := planner.HintSegment(r.Comment)
	return queueClip(strings.Join(strings.Fields(seg), " "), width)
}

// queueClip shortens s to width runes with a trailing "…" (width 0: no limit).
func queueClip(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}
