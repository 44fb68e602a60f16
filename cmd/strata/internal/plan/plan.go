package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// Print writes the result of one cycle (a table with the request bodies
// for slurmrestd's API version, or JSON with asJSON). It fails when another
// daemon held the writer lock (nothing was planned, nothing is printed) and,
// after printing, when job updates failed.
func Print(w io.Writer, res daemon.Result, asJSON bool, version string) error {
	if res.Standby {
		return errors.New("plan: another strata daemon holds the writer lock for this cluster; nothing planned (stop it, or use shadow mode)")
	}
	var err error
	if asJSON {
		err = WriteJSON(w, res)
	} else {
		err = WriteTable(w, res, version)
	}
	if err != nil {
		return err
	}
	if n := res.Report.Count(decide.Failed); n > 0 {
		return fmt.Errorf("plan: %d of %d job updates failed (see the table)", n, len(res.Report.Results))
	}
	return nil
}

// WriteJSON writes the plan, the guards' verdict on each decision and the
// apply report as one indented JSON document.
func WriteJSON(w io.Writer, res daemon.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	type verdict struct {
		JobID   int64          `json:"job_id"`
		Write   bool           `json:"write"`
		Outcome decide.Outcome `json:"outcome,omitempty"`
		Guard   decide.Name    `json:"guard,omitempty"`
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

// WriteTable prints one line per decision with what the guards and Apply
// did, then the request bodies sent (in shadow mode: that would be sent) to
// slurmrestd's API version.
func WriteTable(w io.Writer, res daemon.Result, version string) error {
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
			d.Rank, priorityText(d), outcome, reasonsText(d))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Results {
		switch {
		case r.Body != "":
			fmt.Fprintf(w, "POST /slurm/%s/job/%d %s", version, r.JobID, r.Body)
			if r.Outcome != decide.Applied && r.Outcome != decide.DryRun {
				fmt.Fprintf(w, "  -> %s: %s", r.Outcome, r.Detail)
			}
			fmt.Fprintln(w)
		case r.Detail != "" && r.Outcome != decide.Unchanged:
			fmt.Fprintf(w, "job %d: %s: %s\n", r.JobID, r.Outcome, r.Detail)
		}
	}
	return nil
}

// decisionShape is the GPUS column: "4", "2x4" (nodes × per node), with
// "+Nps" for parameter servers; "-" when the decision sets no size.
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

// priorityText is the PRIORITY column ("-": unchanged).
func priorityText(d planner.Decision) string {
	switch {
	case d.Nice != nil: // the nice priority mode
		return "nice " + strconv.FormatInt(*d.Nice, 10)
	case d.Priority == 0:
		return "-"
	}
	return strconv.FormatInt(d.Priority, 10)
}

// reasonsText is the REASONS column: the reason codes and the detail.
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
