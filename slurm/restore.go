package slurm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// RestoreOptions control Restore.
type RestoreOptions struct {
	// DryRun computes every request body (after re-reading each job) but
	// sends nothing.
	DryRun bool
	// Now is the time begin times are compared with (a begin time Strata
	// set that is still ahead of it is released).
	Now time.Time
	// Trails are the audit trail of each job (db.RestoreTrail); nil: there
	// is no database, and the GPU request is not put back.
	Trails map[int64]Trail
	// Progress, when set, is called after each job with its result and
	// how many jobs are done of how many.
	Progress func(r RestoreResult, done, total int)
}

// RestoreResult is what restore did (or, dry, would do) to one job.
type RestoreResult struct {
	JobID   int64          `json:"job_id"`
	User    string         `json:"user,omitempty"`
	Outcome decide.Outcome `json:"outcome"`
	// Restored lists what was (dry: would be) put back, one field each:
	// "time limit 00:30:00 → 02:00:00 (the user's own)".
	Restored []string `json:"restored,omitempty"`
	// Notes say what was not put back, and why.
	Notes []string `json:"notes,omitempty"`
	// Body is the JSON request body sent (dry: that would be sent).
	Body string `json:"body,omitempty"`
	// Detail says why a job was left alone, or what failed.
	Detail string `json:"detail,omitempty"`
	// Priority is the job's priority read back after the write (Slurm's
	// own again); 0 when not written.
	Priority int64 `json:"priority,omitempty"`
	Err      error `json:"-"`
}

// RestoreReport lists one result per job, in input order.
type RestoreReport struct {
	DryRun     bool            `json:"dry_run"`
	APIVersion string          `json:"api_version,omitempty"`
	Results    []RestoreResult `json:"results"`
}

// Count is the number of results with outcome o.
func (r RestoreReport) Count(o decide.Outcome) int {
	n := 0
	for _, x := range r.Results {
		if x.Outcome == o {
			n++
		}
	}
	return n
}

// Restore puts back what Strata wrote to the pending jobs ids: the time
// limit the user asked for, the GPU request the user submitted (from the
// audit trail), the priority Slurm's priority plugin computes, the begin
// time (now, when Strata deferred the job) and the partition list, and it
// removes Strata's segment of the admin comment (other tools' text kept).
// A job that started with a limit Strata lowered gets its own limit back
// (nothing else of a running job can change). Each job is re-read first;
// one that ended, that Strata never wrote, or
// whose fields its user or an admin changed since Strata's last write is
// left alone and reported with the reason. After a write the job is read
// back and compared, as Apply does. Per-job problems are results; the
// error is for "could not restore at all" (ctx cancelled).
func (c *Client) Restore(ctx context.Context, ids []int64, opts RestoreOptions) (RestoreReport, error) {
	rep := RestoreReport{DryRun: opts.DryRun, APIVersion: c.version}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("restore: %w", err)
		}
		r := c.restoreOne(ctx, id, opts)
		c.log.Debug().Int64("job_id", id).Str("outcome", string(r.Outcome)).Str("detail", r.Detail).Msg("restore job")
		rep.Results = append(rep.Results, r)
		if opts.Progress != nil {
			opts.Progress(r, i+1, len(ids))
		}
	}
	return rep, nil
}

func (c *Client) restoreOne(ctx context.Context, id int64, opts RestoreOptions) RestoreResult {
	cur, ar, ok := c.reread(ctx, ApplyResult{JobID: id})
	res := RestoreResult{JobID: id, User: cur.User, Outcome: ar.Outcome, Detail: ar.Detail, Err: ar.Err}
	var trail *Trail
	if opts.Trails != nil {
		t := opts.Trails[id] // a job the trail never recorded: nothing Strata wrote is known there
		trail = &t
	}
	// A writer that may not write admin comments (an operator) leaves no
	// segment: the audit trail's writes say what it changed.
	w, strata := decide.ParseAdminComment(cur.AdminComment)
	switch {
	case !ok:
		return res
	case !strata && (trail == nil || len(trail.Applied) == 0):
		return restoreSkip(res, decide.Unchanged, "no Strata segment in its admin comment and no write of Strata's in the "+
			"audit trail: nothing of Strata's to put back")
	case cur.ArrayJobID != 0 || cur.HetJobID != 0:
		return restoreSkip(res, decide.Refused, "job array or heterogeneous job: Strata never writes those")
	}
	switch cur.State {
	case planner.JobPending:
	case planner.JobRunning, planner.JobSuspended:
		return c.restoreRunning(ctx, res, cur, w, trail, opts)
	default:
		return restoreSkip(res, decide.SkippedNotPending, "job is "+string(cur.State)+": nothing to put back on an ended job")
	}
	p, err := restoreFor(cur, w, trail, opts.Now)
	res.Restored, res.Notes = p.restored, p.notes
	switch {
	case err != nil:
		res.Err = err
		return restoreSkip(res, decide.Failed, err.Error())
	case len(p.changed) > 0:
		res.Restored = nil
		return restoreSkip(res, SkippedChanged, "changed since Strata's last write ("+strings.Join(p.changed, "; ")+"): left alone")
	}
	if body, err := c.api.updateBody(p.u); err == nil {
		res.Body = string(body)
	}
	if opts.DryRun {
		return restoreSkip(res, decide.DryRun, "not sent (dry run)")
	}
	return c.restoreWrite(ctx, res, p.u)
}

// restoreRunning puts back the time limit of a job that started with a
// limit Strata lowered: Slurm would end it there. Nothing else of a running
// job's request can change; its admin comment stays (the daemon's record
// of signals lives there).
func (c *Client) restoreRunning(ctx context.Context, res RestoreResult, cur planner.Job, w decide.Written, trail *Trail, opts RestoreOptions) RestoreResult {
	if w.Limit <= 0 || cur.TimeLimit <= 0 || cur.TimeLimit >= w.Limit {
		return restoreSkip(res, decide.SkippedNotPending, "job is "+string(cur.State)+" with the time limit it asked for: "+
			"nothing else of a running job's request can be put back")
	}
	if trail != nil {
		lw, err := trail.last()
		if err != nil {
			res.Err = err
			return restoreSkip(res, decide.Failed, err.Error())
		}
		if lw.limitMinutes > 0 && cur.TimeLimit != time.Duration(lw.limitMinutes)*time.Minute {
			return restoreSkip(res, SkippedChanged, fmt.Sprintf("changed since Strata's last write (time limit %s, Strata wrote %s): left alone",
				decide.SlurmTime(cur.TimeLimit), decide.SlurmTime(time.Duration(lw.limitMinutes)*time.Minute)))
		}
	}
	u := JobUpdate{TimeLimitMinutes: limitMinutes(w.Limit)}
	res.Restored = []string{fmt.Sprintf("time limit %s → %s (the user's own; the job is %s: Slurm would end it at the lower one)",
		decide.SlurmTime(cur.TimeLimit), decide.SlurmTime(w.Limit), cur.State)}
	if body, err := c.api.updateBody(u); err == nil {
		res.Body = string(body)
	}
	if opts.DryRun {
		return restoreSkip(res, decide.DryRun, "not sent (dry run)")
	}
	return c.restoreWrite(ctx, res, u)
}

// restoreWrite sends u to the job and reads it back.
func (c *Client) restoreWrite(ctx context.Context, res RestoreResult, u JobUpdate) RestoreResult {
	sent, err := c.updateWhenFree(ctx, res.JobID, u)
	if ctx.Err() != nil && err != nil {
		res.Err = ctx.Err()
		return restoreSkip(res, decide.Failed, res.Err.Error())
	}
	if body, berr := c.api.updateBody(sent); berr == nil {
		res.Body = string(body) // what was sent
	}
	if sent.AdminComment == nil && u.AdminComment != nil {
		res.Notes = append(res.Notes, "admin comment: user "+c.cfg.User+" may not write admin comments; Strata's segment stays")
	}
	switch {
	case errors.Is(err, ErrNotPending):
		return restoreSkip(res, decide.SkippedNotPending, err.Error())
	case errors.Is(err, ErrNotFound):
		return restoreSkip(res, decide.SkippedGone, err.Error())
	case err != nil:
		err = c.explainPermission(err, sent)
		res.Err = err
		return restoreSkip(res, decide.Failed, err.Error())
	}
	if err := c.verify(ctx, res.JobID, sent); err != nil {
		res.Err = err
		return restoreSkip(res, decide.Failed, err.Error())
	}
	if sent.ResetPriority {
		got, err := c.api.job(ctx, res.JobID)
		switch {
		case err != nil:
			res.Err = fmt.Errorf("verify job %d: %w", res.JobID, err)
			return restoreSkip(res, decide.Failed, res.Err.Error())
		case got.Priority == 0:
			res.Err = fmt.Errorf("verify job %d: read back priority 0 (held), want Slurm's own", res.JobID)
			return restoreSkip(res, decide.Failed, res.Err.Error())
		}
		res.Priority = got.Priority
	}
	res.Outcome = decide.Applied
	return res
}

// busyTries bounds the attempts of one write (the daemon's, restore's)
// that slurmctld answers "Resource temporarily unavailable": seen on the
// test cluster for about one partition change in two, each time on a job
// no one else touched; the same update sent again went through, at once on
// an idle machine; under make test's load five immediate tries all failed
// (0.12 s), so each try waits busyBackoff × its number (3 s in all).
const (
	busyTries   = 6
	busyBackoff = 200 * time.Millisecond
)

// updateWhenFree is update, sent again while slurmctld answers EAGAIN
// (busy), backing off: every field of a JobUpdate is absolute, so sending
// it again is safe. Without this the daemon counted each EAGAIN as a
// failed write, and three in a row stopped its writes to the job for good
// (--max-failed-writes).
func (c *Client) updateWhenFree(ctx context.Context, id int64, u JobUpdate) (JobUpdate, error) {
	sent, err := c.update(ctx, id, u)
	for try := 1; try < busyTries && busy(err); try++ {
		select { // slurmctld's EAGAIN lasts longer on a loaded controller: back off
		case <-ctx.Done():
			return sent, err
		case <-time.After(time.Duration(try) * busyBackoff):
		}
		sent, err = c.update(ctx, id, u)
	}
	return sent, err
}

// busy reports slurmctld's EAGAIN (slurm error 11) for an update.
func busy(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	for _, p := range ae.Errors {
		if p.Number == 11 {
			return true
		}
	}
	return false
}

func restoreSkip(r RestoreResult, o decide.Outcome, detail string) RestoreResult {
	r.Outcome, r.Detail = o, detail
	return r
}
