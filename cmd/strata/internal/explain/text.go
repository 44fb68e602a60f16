package explain

import (
	"fmt"
	"io"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// writeText tells the story of one job in words.
func writeText(w io.Writer, ex Explanation, now time.Time) error {
	p := &printer{w: w}
	if ex.Latest == nil {
		p.f("Strata has no recorded decision for job %d.\n", ex.JobID)
		p.f("It may have been submitted after the last cycle, never pending while the daemon ran, outside\n" +
			"the daemon's scope (--only-partitions/--only-users/--only-job-name-prefix), or the daemon has\n" +
			"not run yet.\n")
		if ex.LastCycle != nil {
			p.f("Last cycle: %d at %s (%s mode, policy %s, %d pending jobs).\n", ex.LastCycle.ID,
				stamp(ex.LastCycle.StartedAt, now), mode(ex.LastCycle.Enforce), ex.LastCycle.Policy, ex.LastCycle.Inputs.PendingJobs)
		}
		return p.err
	}
	d := ex.Latest
	p.f("Job %d (%s) of user %s in partition %s, asking %d GPU(s) when seen.\n", d.JobID, orDash(d.JobName),
		orDash(d.User), orDash(d.Partition), d.RequestedGPUs)
	p.f("Decided in cycle %d at %s by policy %s, %s mode.\n", d.CycleID, stamp(d.DecidedAt, now), d.Policy, mode(d.Enforce))
	if len(d.Settings) > 0 {
		p.f("Settings of that cycle: %s\n", config.SettingsLine(d.Settings))
	}
	p.f("\nDecision: %s\n", decisionWords(d.Decision))
	if s := serverTasksWords(d.Body, d.Workers, d.PS); s != "" {
		p.f("Servers: %s\n", s)
	}
	p.f("\nWhy:\n")
	for _, r := range ex.Reasons {
		p.f("  - %s (%s)\n", r.Text, r.Code)
	}
	if d.Detail != "" {
		p.f("  Detail: %s\n", d.Detail)
	}
	if !d.PredictedStart.IsZero() {
		p.f("\nPredicted start %s, completion %s.\n", stamp(d.PredictedStart, now), stamp(d.PredictedEnd, now))
	}
	if d.Claimed > 0 && !d.PredictedStart.IsZero() {
		p.f("Prediction corrected by the user's own record: the hint (or history) gave a run of %s; planned with %s\n"+
			"(strata report predictions --by user shows the record).\n",
			d.Claimed.Round(time.Second), d.PredictedEnd.Sub(d.PredictedStart).Round(time.Second))
	}
	if l := ex.LimitLowered; l != nil {
		p.f("%s\n", limitWords(l))
	} else if d.TimeLimit > 0 && d.Outcome != decide.Applied {
		p.f("Time limit: this decision would lower it to %s (bind-claims); not written (%s).\n", decide.SlurmTime(d.TimeLimit), d.Outcome)
	}
	p.f("\nSlurm: %s\n", outcomeWords(d.CycleDecision))
	if d.Body != "" {
		p.f("  request body: %s\n", d.Body)
	}
	p.f("\nIn other modes:\n")
	p.f("  - %s\n", otherModeWords(d.CycleDecision, d.Enforce))
	for _, a := range d.Alternatives {
		p.f("  - policy %s would have: %s\n", a.Policy, alternativeWords(a, now))
	}
	if len(ex.History) > 0 {
		p.f("\nEarlier decisions (newest first):\n")
		for _, h := range ex.History {
			p.f("  cycle %d  %s  %s  -> %s\n", h.CycleID, stamp(h.DecidedAt, now), decisionWords(h.Decision), h.Outcome)
		}
	}
	return p.err
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func mode(enforce bool) string {
	if enforce {
		return "enforce"
	}
	return "shadow (dry-run)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stamp prints a time in UTC with its distance from now.
func stamp(t, now time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	d := t.Sub(now).Round(time.Second)
	rel := "now"
	switch {
	case d > 0:
		rel = "in " + d.String()
	case d < 0:
		rel = (-d).String() + " ago"
	}
	return fmt.Sprintf("%s (%s)", t.UTC().Format("2006-01-02 15:04:05Z"), rel)
}

// decisionWords says a decision in words, with the Slurm priority of updates.
func decisionWords(d planner.Decision) string {
	s := decisionSummary(d)
	switch {
	case d.Action != planner.ActionUpdate:
	case d.Nice != nil:
		s += fmt.Sprintf(" (nice %d on the site's own priority)", *d.Nice)
	case d.Priority == 0: // the nice mode: the nice is in the request body
	default:
		s += fmt.Sprintf(" (Slurm priority %d)", d.Priority)
	}
	return s
}

// decisionSummary is decisionWords without the priority (alternatives have none).
func decisionSummary(d planner.Decision) string {
	switch d.Action {
	case planner.ActionUpdate:
		s := fmt.Sprintf("run with %d worker GPU(s)", d.Workers)
		if d.GPUsPerNode > 0 {
			s += fmt.Sprintf(" as %d node(s) × %d GPU(s)", max(1, d.NodeCount), d.GPUsPerNode)
		}
		if d.PS > 0 {
			s += fmt.Sprintf(" and %d parameter server(s)", d.PS)
		}
		return s + fmt.Sprintf("; start order %d", d.Rank)
	case planner.ActionKeep:
		if d.Rank > 0 {
			return fmt.Sprintf("leave the GPU request as it is; start order %d", d.Rank)
		}
		return "leave the job as it is"
	case db.RestoreAction:
		return "put back what Strata wrote (strata restore)"
	}
	return string(d.Action)
}

// outcomeWords says what happened to the write to Slurm.
func outcomeWords(c db.CycleDecision) string {
	switch c.Outcome {
	case decide.Applied:
		return "written to the job (priority, GPU request, begin time, admin comment) and read back"
	case decide.DryRun:
		return "nothing written (shadow mode)"
	case decide.Unchanged:
		return "nothing to write: the job already matches the decision"
	case decide.Kept:
		return "nothing to write"
	case decide.Held:
		return "held back: " + c.Guard.Describe()
	}
	s := string(c.Outcome)
	if c.OutcomeDetail != "" {
		s += ": " + c.OutcomeDetail
	}
	return s
}

// otherModeWords says what the other mode (shadow or enforce) would have done.
func otherModeWords(c db.CycleDecision, enforce bool) string {
	switch {
	case enforce && c.Body != "":
		return "in shadow mode the same decision is computed and recorded, and nothing is written"
	case enforce:
		return "in shadow mode the same decision is computed and recorded; nothing would be written either"
	case c.Body != "":
		return "in enforce mode Strata would have sent the request body above to slurmrestd"
	case c.Outcome == decide.Held:
		return "in enforce mode the same guard would have held the write back"
	}
	return "in enforce mode nothing would have been written either"
}

// alternativeWords says what a comparison policy would have done.
func alternativeWords(a db.Alternative, now time.Time) string {
	s := decisionSummary(planner.Decision{Action: a.Action, Workers: a.Workers, PS: a.PS, Rank: a.Rank})
	if !a.PredictedStart.IsZero() {
		s += ", start " + stamp(a.PredictedStart, now) + ", end " + stamp(a.PredictedEnd, now)
	}
	return s
}

// limitWords tells a lowered time limit that holds, from what to what.
func limitWords(l *Limit) string {
	from := "the limit the job asked for"
	if l.From != "" {
		from = l.From + " (the job's own)"
	}
	return fmt.Sprintf("Time limit lowered by Strata from %s to %s (cycle %d; its claim binds the job, bind-claims): "+
		"Slurm ends the job at %s. strata restore puts the job's own back.", from, l.To, l.Cycle, l.To)
}
