package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// JobReader reads one job from Slurm; *slurm.Client implements it.
type JobReader interface {
	Job(ctx context.Context, id int64) (planner.Job, error)
}

// Short is the short form of an explanation, read from Slurm's record of
// the job (the strata: segment Strata keeps in its admin comment) when no
// database is reachable: the latest decision's why and planned start, not
// the audit trail.
type Short struct {
	JobID int64 `json:"job_id"`
	// ShortForm is always true: the answer comes from the admin comment.
	ShortForm bool `json:"short_form"`
	// NoDatabase says why the audit trail was not read.
	NoDatabase string `json:"no_database"`
	// Found is true when Strata's segment is in the admin comment.
	Found     bool   `json:"found"`
	User      string `json:"user"`
	Name      string `json:"name"`
	Partition string `json:"partition"`
	State     string `json:"state"`
	// SlurmReason is Slurm's reason for a pending job (squeue's %r).
	SlurmReason string `json:"slurm_reason,omitempty"`
	// Hint says why Strata leaves the job alone when its hint does:
	// "rewrite=no", or the parse error.
	Hint    string   `json:"hint,omitempty"`
	Workers int      `json:"workers,omitempty"`
	PS      int      `json:"ps,omitempty"`
	Rank    int      `json:"rank,omitempty"`
	Cycle   int64    `json:"cycle,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
	// PlannedStart is the start the plan gave the job at Strata's last
	// write to it.
	PlannedStart time.Time `json:"planned_start,omitzero"`
	// DeferredUntil is the begin time Strata set (squeue: BeginTime).
	DeferredUntil time.Time `json:"deferred_until,omitzero"`
	// LimitLowered is the time limit the user asked for, when Strata
	// lowered it (a bound claim).
	LimitLowered time.Duration `json:"limit_lowered_from,omitempty"`
	// Limit is that lowered limit, from what to what in Slurm's time
	// format, while it holds (the job's limit is still below it).
	Limit *Limit `json:"limit_lowered,omitempty"`
}

// ExplainFromSlurm reads job id through r and writes the short form of its
// explanation to w (text, or JSON with o.JSON): what Strata's segment of
// the admin comment says, with noDB, the reason the audit trail could not
// be read, stated first.
func ExplainFromSlurm(ctx context.Context, w io.Writer, r JobReader, id int64, o Options, noDB error) error {
	j, err := r.Job(ctx, id)
	if err != nil {
		return fmt.Errorf("explain job %d from slurm: %w", id, err)
	}
	s := shortOf(j, noDB)
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return writeShort(w, s, o.Now)
}

// shortOf reads the short form out of job j's Slurm record.
func shortOf(j planner.Job, noDB error) Short {
	s := Short{JobID: j.ID, ShortForm: true, User: j.User, Name: j.Name, Partition: j.Partition, State: string(j.State),
		DeferredUntil: j.DeferredUntil}
	if noDB != nil {
		s.NoDatabase = noDB.Error()
	}
	if j.State == planner.JobPending {
		s.SlurmReason = j.Reason
	}
	if h, ok, err := planner.ParseHints(j.Comment); ok && err != nil {
		s.Hint = err.Error()
	} else if ok && h.NoRewrite {
		s.Hint = "rewrite=no"
	}
	wr, ok := decide.ParseAdminComment(j.AdminComment)
	if !ok {
		return s
	}
	s.Found, s.Workers, s.PS, s.Rank, s.Cycle = true, wr.Workers, wr.PS, wr.Rank, wr.Cycle
	if s.Limit = slurmLimit(j); s.Limit != nil {
		s.LimitLowered = wr.Limit
	}
	for _, c := range wr.Why {
		s.Reasons = append(s.Reasons, Reason{string(c), c.Describe()})
	}
	if s.PlannedStart = wr.Start; s.PlannedStart.IsZero() {
		s.PlannedStart = wr.Defer
	}
	return s
}

// writeShort tells the short form in words.
func writeShort(w io.Writer, s Short, now time.Time) error {
	p := &printer{w: w}
	p.f("Short form, from Slurm's record of job %d: no database was reachable", s.JobID)
	if s.NoDatabase != "" {
		p.f(" (%s)", s.NoDatabase)
	}
	p.f(".\nIt says what Strata last wrote to the job's admin comment (scontrol show job shows it too); the\n" +
		"full story (each cycle, the numbers behind the reasons, other policies) needs the database.\n\n")
	p.f("Job %d (%s) of user %s in partition %s: %s", s.JobID, orDash(s.Name), orDash(s.User), orDash(s.Partition), orDash(s.State))
	if s.SlurmReason != "" && s.SlurmReason != "None" {
		p.f(", Slurm's reason %s", s.SlurmReason)
	}
	p.f(".\n")
	if s.Hint == "rewrite=no" {
		p.f("Its hint says rewrite=no: Strata leaves it exactly as submitted.\n")
	} else if s.Hint != "" {
		p.f("Its hint does not parse (%s): Strata leaves it exactly as submitted.\n", s.Hint)
	}
	if !s.Found {
		p.f("Strata has not written to this job (its admin comment has no strata: segment).\n")
		return p.err
	}
	p.f("\nDecision (cycle %d): run with %d worker GPU(s)", s.Cycle, s.Workers)
	if s.PS > 0 {
		p.f(" and %d parameter server(s)", s.PS)
	}
	p.f("; start order %d\n", s.Rank)
	if len(s.Reasons) > 0 {
		p.f("\nWhy:\n")
		for _, r := range s.Reasons {
			p.f("  - %s (%s)\n", r.Text, r.Code)
		}
	} else {
		p.f("(written by an older Strata, which kept no why= in the admin comment)\n")
	}
	if !s.PlannedStart.IsZero() {
		p.f("\nPlanned start %s, as planned at that write.\n", stamp(s.PlannedStart, now))
	}
	if s.DeferredUntil.After(now) {
		p.f("Strata set the job's begin time to %s: Slurm does not start it before then (squeue shows\n"+
			"(BeginTime)); Strata moves it earlier when room frees up for it.\n", stamp(s.DeferredUntil, now))
	}
	if s.Limit != nil {
		p.f("%s\n", limitWords(s.Limit))
	}
	return p.err
}
