package slurm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// preemptOne sends a running job that opted in its checkpoint signal, at
// most once. The attempt is recorded first in the admin comment (sig=, with
// the size to restart at), so that no later cycle signals the run again
// while it checkpoints, and the daemon can tell a job that keeps running
// that run (non-cooperative). Then the signal is sent, never retried once
// it may have reached slurmctld, and its fate decided:
//
//   - answered OK: signalled;
//   - refused for sure (Slurm's errors[], a 4xx, a connection refused):
//     not delivered, so sig= is taken back (the job would otherwise be
//     marked non-cooperative for a signal it never got) and the outcome is
//     failed;
//   - ambiguous (a 5xx without Slurm errors, as a proxy's 502/503/504; a
//     connection lost after sending): the job is re-read. Gone or no longer
//     running the run signalled: it got the signal. Still running it: the
//     delivery is unconfirmed. Both count as signalled (the per-day cap
//     counts it, sig= stays, nothing is sent again); the detail says which.
func (c *Client) preemptOne(ctx context.Context, d planner.Decision, opts ApplyOptions) ApplyResult {
	cur, res, ok := c.reread(ctx, ApplyResult{JobID: d.JobID})
	switch {
	case !ok:
		return res
	case cur.State != planner.JobRunning:
		return skipped(res, decide.SkippedNotRunning, "job is "+string(cur.State), nil)
	case cur.NonCooperative:
		return skipped(res, decide.Refused, "the job ignored an earlier checkpoint signal (noncoop): it is never signalled again", nil)
	case !cur.Requeue:
		return skipped(res, decide.Refused, "Slurm's record does not allow a requeue (sbatch --requeue)", nil)
	}
	signal, ok := "", false
	if opts.Preemptible != nil {
		signal, ok = opts.Preemptible(cur)
	}
	if !ok || signal == "" {
		return skipped(res, decide.Refused, "the job did not opt in to preemption (hint preempt=yes)", nil)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	w, _ := decide.ParseAdminComment(cur.AdminComment)
	before := w.Signalled
	w.Workers, w.PS, w.Rank, w.Cycle, w.Signalled = d.Workers, d.PS, d.Rank, opts.Cycle, now.UTC().Truncate(time.Second)
	ac := decide.MergeAdminComment(cur.AdminComment, w)
	u := JobUpdate{AdminComment: &ac}
	body, err := c.api.updateBody(u)
	if err != nil {
		return skipped(res, decide.Failed, err.Error(), err)
	}
	res.Body = fmt.Sprintf(`%s then DELETE ?signal=SIG%s&flags=BATCH_JOB`, body, signal)
	if stop, ok := holdBack(ctx, res, opts); ok {
		return stop
	}
	if c.noAdminComment.Load() {
		err := c.adminCommentError("preempt a job (Strata records the signal it sent there)")
		return skipped(res, decide.Failed, err.Error(), err)
	}
	if err := c.api.updateJob(ctx, d.JobID, u); err != nil {
		err = c.explainPermission(err, u)
		return skipped(res, decide.Failed, err.Error(), err)
	}
	sent := "sent SIG" + signal + " to the batch shell; the job checkpoints and requeues itself"
	err = c.api.signalJob(ctx, d.JobID, signal)
	switch {
	case err == nil:
		res.Outcome, res.Detail = decide.Signalled, sent
	case notDelivered(err):
		w.Signalled = before
		back := decide.MergeAdminComment(ac, w)
		detail := "signal not delivered: " + err.Error() + "; sig= taken back"
		if rerr := c.api.updateJob(context.WithoutCancel(ctx), d.JobID, JobUpdate{AdminComment: &back}); rerr != nil {
			detail = "signal not delivered: " + err.Error() + "; sig= could not be taken back (" + rerr.Error() +
				"): the job will be marked non-cooperative after the requeue timeout unless its admin comment loses sig="
		}
		return skipped(res, decide.Failed, detail, err)
	default:
		res.Outcome, res.Detail = decide.Signalled, c.afterAmbiguousSignal(ctx, cur, err)
		c.log.Warn().Int64("job_id", d.JobID).Err(err).Str("detail", res.Detail).Msg("checkpoint signal answered ambiguously: not sent again")
	}
	return res
}

// notDelivered reports a signal that surely did not reach slurmctld (or
// that slurmctld refused): Slurm's own errors[], a 4xx answer, or a
// connection that was never made.
func notDelivered(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return len(ae.Errors) > 0 || ae.Status < 500
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// afterAmbiguousSignal re-reads job cur after its signal got an answer
// that does not say whether it was delivered, and says what it found.
func (c *Client) afterAmbiguousSignal(ctx context.Context, cur planner.Job, sigErr error) string {
	now, err := c.api.job(context.WithoutCancel(ctx), cur.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		return "delivered: the answer was " + sigErr.Error() + ", and the job is gone since"
	case err == nil && (now.State != planner.JobRunning || !now.StartTime.Equal(cur.StartTime)):
		return "delivered: the answer was " + sigErr.Error() + ", and the job left the run signalled (now " + string(now.State) + ")"
	case err != nil:
		sigErr = fmt.Errorf("%w; re-read: %w", sigErr, err)
	}
	return "delivery unconfirmed: the answer was " + sigErr.Error() + ", and the job still runs the run signalled; " +
		"counted as signalled and not sent again (if it never got the signal, it is marked non-cooperative after the requeue timeout)"
}

// markOne records in the admin comment of a running job that ignored its
// checkpoint signal (decide.NonCooperative) that it is non-cooperative
// (noncoop=1): it is never signalled again. It is a write like any other:
// re-read first, counted (n=), fenced, audited; other text in the admin
// comment is kept.
func (c *Client) markOne(ctx context.Context, d planner.Decision, opts ApplyOptions) ApplyResult {
	cur, res, ok := c.reread(ctx, ApplyResult{JobID: d.JobID})
	switch {
	case !ok:
		return res
	case cur.State != planner.JobRunning:
		return skipped(res, decide.SkippedNotRunning, "job is "+string(cur.State)+": it left the run it was signalled in", nil)
	}
	w, _ := decide.ParseAdminComment(cur.AdminComment)
	if w.NonCooperative {
		return skipped(res, decide.Unchanged, "already marked non-cooperative", nil)
	}
	w.NonCooperative = true
	w.Writes++
	ac := decide.MergeAdminComment(cur.AdminComment, w)
	u := JobUpdate{AdminComment: &ac}
	body, err := c.api.updateBody(u)
	if err != nil {
		return skipped(res, decide.Failed, err.Error(), err)
	}
	res.Body = string(body)
	if stop, ok := holdBack(ctx, res, opts); ok {
		return stop
	}
	if err := c.api.updateJob(ctx, d.JobID, u); err != nil {
		err = c.explainPermission(err, u)
		return skipped(res, decide.Failed, err.Error(), err)
	}
	res.Outcome, res.Detail = decide.Applied, "marked non-cooperative: never signalled again"
	return res
}
