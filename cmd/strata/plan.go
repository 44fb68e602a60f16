package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

const (
	planFlagPolicy  = "policy"
	planFlagDryRun  = "dry-run"
	planFlagEnforce = "enforce"
	planFlagJSON    = "json"
	planFlagCycle   = "cycle"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "run one plan cycle: snapshot → policy → apply (shadow by default)",
		Description: "Reads the queue, runs the policy once and shows, per job, what Strata decides and why.\n" +
			"--dry-run (the default) sends nothing and prints the request bodies it would send;\n" +
			"--enforce rewrites pending jobs (priority, GPU request, admin comment) and verifies them.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: planFlagPolicy, Value: "fifo", EnvVars: []string{"STRATA_POLICY"},
				Usage: "planning policy: " + strings.Join(planner.PolicyNames(), ", ")},
			&cli.BoolFlag{Name: planFlagDryRun, Usage: "shadow mode: compute and show, write nothing (default)"},
			&cli.BoolFlag{Name: planFlagEnforce, Usage: "write the decisions to pending jobs"},
			&cli.BoolFlag{Name: planFlagJSON, Usage: "machine-readable JSON (plan and apply report)"},
			&cli.Int64Flag{Name: planFlagCycle, Usage: "cycle number written in the admin comment"},
		}, slurmFlags()...),
		Action: runPlan,
	}
}

func runPlan(c *cli.Context) error {
	if c.Bool(planFlagDryRun) && c.Bool(planFlagEnforce) {
		return exitError{code: 2, err: errors.New("--dry-run and --enforce exclude each other")}
	}
	policy, err := planner.NewPolicy(c.String(planFlagPolicy), planner.Options{})
	if err != nil {
		return exitError{code: 2, err: err}
	}
	cl, err := connectSlurm(c)
	if err != nil {
		return err
	}
	snap, err := cl.Snapshot(c.Context)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	plan, err := policy.Plan(c.Context, snap)
	if err != nil {
		return fmt.Errorf("plan: policy %s: %w", c.String(planFlagPolicy), err)
	}
	if plan.Policy == "" {
		plan.Policy = c.String(planFlagPolicy)
	}
	opts := slurm.ApplyOptions{DryRun: !c.Bool(planFlagEnforce), Cycle: c.Int64(planFlagCycle), Nodes: snap.Nodes}
	rep, err := cl.Apply(c.Context, plan.Decisions, opts)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	log := logger(c)
	log.Info().Str("snapshot_id", snap.ID).Str("policy", plan.Policy).Int("jobs", len(snap.Jobs)).
		Int("decisions", len(plan.Decisions)).Int("applied", rep.Count(slurm.Applied)).
		Int("failed", rep.Count(slurm.Failed)).Bool("dry_run", opts.DryRun).Msg("plan cycle")
	if c.Bool(planFlagJSON) {
		err = writePlanJSON(c.App.Writer, plan, rep)
	} else {
		err = writePlanTable(c.App.Writer, plan, rep, cl.APIVersion())
	}
	if err != nil {
		return err
	}
	if n := rep.Count(slurm.Failed); n > 0 {
		return fmt.Errorf("plan: %d of %d job updates failed (see the table)", n, len(rep.Results))
	}
	return nil
}

func writePlanJSON(w io.Writer, plan planner.Plan, rep slurm.ApplyReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Plan  planner.Plan      `json:"plan"`
		Apply slurm.ApplyReport `json:"apply"`
	}{plan, rep})
}

// writePlanTable prints one line per decision with what Apply did, then,
// in dry-run, the request bodies that would be sent.
func writePlanTable(w io.Writer, plan planner.Plan, rep slurm.ApplyReport, version string) error {
	byJob := make(map[int64]slurm.ApplyResult, len(rep.Results))
	for _, r := range rep.Results {
		byJob[r.JobID] = r
	}
	mode := "enforce"
	if rep.DryRun {
		mode = "dry run: nothing sent"
	}
	fmt.Fprintf(w, "policy %s, snapshot %s (%s)\n", plan.Policy, plan.SnapshotID, mode)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tACTION\tSTART\tGPUS\tRANK\tPRIORITY\tOUTCOME\tREASONS")
	for _, d := range plan.Decisions {
		outcome := "-"
		if r, ok := byJob[d.JobID]; ok {
			outcome = string(r.Outcome)
		}
		fmt.Fprintf(tw, "%d\t%s\t%v\t%s\t%d\t%s\t%s\t%s\n", d.JobID, d.Action, d.Start, decisionShape(d),
			d.Rank, priorityText(d.Priority), outcome, reasonsText(d))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Results {
		switch {
		case r.Body != "":
			fmt.Fprintf(w, "POST /slurm/%s/job/%d %s", version, r.JobID, r.Body)
			if r.Outcome != slurm.Applied && r.Outcome != slurm.DryRun {
				fmt.Fprintf(w, "  -> %s: %s", r.Outcome, r.Detail)
			}
			fmt.Fprintln(w)
		case r.Detail != "" && r.Outcome != slurm.Unchanged:
			fmt.Fprintf(w, "job %d: %s: %s\n", r.JobID, r.Outcome, r.Detail)
		}
	}
	return nil
}

func decisionShape(d planner.Decision) string {
	if d.GPUsPerNode == 0 {
		return "-"
	}
	s := strconv.Itoa(d.GPUsPerNode)
	if d.NodeCount > 1 {
		s = fmt.Sprintf("%dx%d", d.NodeCount, d.GPUsPerNode)
	}
	if d.PS > 0 {
		s += fmt.Sprintf("+%dps", d.PS)
	}
	return s
}

func priorityText(p int64) string {
	if p == 0 {
		return "-"
	}
	return strconv.FormatInt(p, 10)
}

func reasonsText(d planner.Decision) string {
	rs := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		rs[i] = string(r)
	}
	s := strings.Join(rs, ",")
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}
