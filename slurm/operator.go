package slurm

import (
	"context"
	"errors"
	"fmt"
)

// An operator (sacctmgr ... set adminlevel=operator, with slurmdbd) may
// change any job's priority and GPU request, but not its admin comment:
// Slurm lets only root and SlurmUser write that (error 2002). Strata keeps
// its bookkeeping there (workers, rank, cycle, the begin time it set, the
// checkpoint signal it sent). So, once Slurm refused an update only because
// of its admin comment, the client writes later updates without it; the
// writes that cannot do without it (a deferral's begin time, a checkpoint
// signal, a partition move) are refused with what to change.

// update writes u to job id and returns what it wrote: u, or u without its
// admin comment for a user that may not write admin comments (then empty
// when that was all).
func (c *Client) update(ctx context.Context, id int64, u JobUpdate) (JobUpdate, error) {
	if u.AdminComment != nil && c.noAdminComment.Load() {
		if u.BeginTime != 0 {
			return u, c.adminCommentError("defer a job (Strata records the begin time it set there)")
		}
		if u.Partition != nil {
			return u, c.adminCommentError("move a job to one of its partitions (Strata records the user's list there)")
		}
		if u.TimeLimitMinutes != 0 {
			return u, c.adminCommentError("lower a job's time limit (Strata records the user's own there, for strata restore)")
		}
		u.AdminComment = nil
		if u.empty() {
			return u, nil
		}
		return u, c.api.updateJob(ctx, id, u)
	}
	err := c.api.updateJob(ctx, id, u)
	if !errors.Is(err, ErrPermission) || u.AdminComment == nil || u.BeginTime != 0 || u.Partition != nil || u.TimeLimitMinutes != 0 ||
		!c.accounting {
		return u, err
	}
	bare := u
	bare.AdminComment = nil
	if bare.empty() || c.api.updateJob(ctx, id, bare) != nil {
		return u, err
	}
	if !c.noAdminComment.Swap(true) {
		c.log.Warn().Str("user", c.cfg.User).Msg("Slurm refuses this user's admin comments (only root and SlurmUser may write " +
			"them): priorities and GPU requests are written without Strata's bookkeeping; deferrals and checkpoint signals " +
			"need SlurmUser's token (docs/slurm.md, least privilege)")
	}
	return bare, nil
}

// adminCommentError is the refusal of a write that needs the admin comment.
func (c *Client) adminCommentError(what string) error {
	return fmt.Errorf("user %s may not write admin comments (only root and SlurmUser may), needed to %s: "+
		"give Strata a token of SlurmUser (scontrol token username=<SlurmUser>): %w", c.cfg.User, what, ErrPermission)
}

func (u JobUpdate) empty() bool { return u == JobUpdate{} }
