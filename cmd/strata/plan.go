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

	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/guard"
)

const (
	planFlagDryRun = "dry-run"
	planFlagJSON   = "json"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "run one plan cycle: snapshot → policy → guards → apply (shadow by default)",
		Description: "Reads the queue, runs the policy once and shows, per job, what Strata decides and why.\n" +
			"Shadow mode (the default) sends nothing and prints the request bodies it would send.\n" +
			"--enforce rewrites pending jobs (priority, GPU request, begin time, admin comment) through the\n" +
			"same guards and one-writer lock as `strata run --enforce`, so it needs --database-url too\n" +
			"(the audit trail and the lock). A daemon holding the lock makes it stop (exit 1).",
		Flags: append(append(append(cycleFlags(),
			&cli.BoolFlag{Name: planFlagDryRun, Usage: "shadow mode: compute and show, write nothing (the default)"},
			&cli.BoolFlag{Name: planFlagJSON, Usage: "machine-readable JSON (plan, guard verdicts, apply report)"},
		), databaseFlags()...), slurmFlags()...),
		Action: runPlan,
	}
}

func runPlan(c *cli.Context) error {
	if c.Bool(planFlagDryRun) && c.Bool(flagRunEnforce) {
		return exitError{code: 2, err: errors.New("--dry-run and --enforce exclude each other")}
	}
	opts := cycleOptionsFrom(c, configFromContext(c.Context))
	if err := opts.Validate(); err != nil {
		return exitError{code: 2, err: err}
	}
	log := logger(c).With().Str("component", "plan").Logger()
	deps, err := daemonDeps(c, log)
	if err != nil {
		return err
	}
	if !opts.Enforce {
		// Shadow mode records nothing and so takes no writer lock: it runs
		// beside a daemon. (strata run keeps the audit trail.)
		deps.Open = nil
	}
	d, err := daemon.New(log, opts, deps, daemon.NewMetrics())
	if err != nil {
		return exitError{code: 2, err: err}
	}
	defer d.Close()
	res, err := d.RunOnce(c.Context)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if res.Standby {
		return errors.New("plan: another strata daemon holds the writer lock for this cluster; nothing planned (stop it, or use shadow mode)")
	}
	if c.Bool(planFlagJSON) {
		err = writePlanJSON(c.App.Writer, res)
	} else {
		err = writePlanTable(c.App.Writer, res, "v0.0.42")
	}
	if err != nil {
		return err
	}
	if n := res.Report.Count(guard.Failed); n > 0 {
		return fmt.Errorf("plan: %d of %d job updates failed (see the table)", n, len(res.Report.Results))
	}
	return nil
}

func writePlanJSON(w io.Writer, res daemon.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	type verdict struct {
		JobID   int64         `json:"job_id"`
		Write   bool          `json:"write"`
		Outcome guard.Outcome `json:"outcome,omitempty"`
		Guard   guard.Name    `json:"guard,omitempty"`
	}
	vs := make([]verdict, len(res.Verdicts))
	for i, v := range res.Verdicts {
		vs[i] = verdict{v.Send.JobID, v.Write, v.Outcome, v.Guard}
	}
	return enc.Encode(struct {
		Plan     planner.Plan      `json:"plan"`
		Verdicts []verdict         `json:"guards"`
		Apply    slurm.ApplyReport `json:"apply"`
	}{res.Plan, vs, res.Report})
}

// writePlanTable prints one line per decision with what the guards and
// Apply did, then, in shadow mode, the request bodies that would be sent.
func writePlanTable(w io.Writer, res daemon.Result, version string) error {
	plan, rep := res.Plan, res.Report
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
	for i, d := range plan.Decisions {
		outcome := "-"
		if i < len(res.Verdicts) && res.Verdicts[i].Outcome != "" {
			outcome = string(res.Verdicts[i].Outcome)
			if g := res.Verdicts[i].Guard; g != "" {
				outcome += " (" + string(g) + ")"
			}
		}
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
			if r.Outcome != guard.Applied && r.Outcome != guard.DryRun {
				fmt.Fprintf(w, "  -> %s: %s", r.Outcome, r.Detail)
			}
			fmt.Fprintln(w)
		case r.Detail != "" && r.Outcome != guard.Unchanged:
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
