package planner

import (
	"fmt"
	"math"
	"time"
)

// Claim binding (Options.BindClaims): a pending job whose place in the
// queue rests on its hint's claim, timed far below the limit its user
// asked Slurm for, gets its time limit lowered to a margin over the
// prediction, so that a claim that was a lie ends at the limit instead of
// holding GPUs the plan gave to others.
const (
	// DefaultClaimMargin is the bound limit over the predicted run time.
	DefaultClaimMargin = 2.0
	// DefaultClaimFloor is the least limit a binding writes.
	DefaultClaimFloor = 30 * time.Minute
	// MinBoundLimit is the least limit any binding may write (the floor of
	// the floor; package decide holds writes to it).
	MinBoundLimit = 10 * time.Minute
	// bindTrigger: a limit is lowered only when it is at least this
	// multiple of the bound limit (3× the prediction at the default
	// margin), so that small moves of the prediction write nothing.
	bindTrigger = 1.5
	// BindRecordFactor: a claim binds only a user whose own record shows
	// understatement, a correction of at least this factor (Claim.Factor):
	// the time model's own error (2-3× for a site's own code) must never
	// end an honest user's job, so a user without such a record is never
	// bound (issue 30).
	BindRecordFactor = 1.5
)

// BoundLimit is the time limit that binds a claim of predicted run time
// pred: margin × pred, at least floor, rounded up to whole minutes (Slurm's
// unit). Zero margin and floor take the defaults.
func BoundLimit(pred time.Duration, margin float64, floor time.Duration) time.Duration {
	if margin <= 0 {
		margin = DefaultClaimMargin
	}
	if floor <= 0 {
		floor = DefaultClaimFloor
	}
	lim := max(floor, MinBoundLimit, time.Duration(math.Ceil(margin*float64(pred))))
	return (lim + time.Minute - 1).Truncate(time.Minute)
}

// bindClaim sets d.TimeLimit for a planned pending job whose claim binds
// it (only with Options.BindClaims, off by default): an update of a
// rewritable job timed by its hint (duration_modelled, after its user's
// correction) whose user's own record shows understatement (Claim.Factor
// ≥ BindRecordFactor), not distrusted (a distrusted job is timed by its
// limit already), not preemptible (a job with preempt=yes that Slurm may
// requeue is checkpointed by preemption instead of being stopped; without
// requeue the word exempts nothing), whose limit is at least bindTrigger ×
// the bound limit. The bound is taken at the slowest size the job may
// start at (the least of its range), so that a later change of its size
// cannot erode the margin.
func (c *cycle) bindClaim(pl *planned, d *Decision) {
	ji, j := pl.ji, pl.ji.job
	if !c.o.BindClaims || pl.action != ActionUpdate || j.State != JobPending || !ji.hasHint || ji.keep ||
		ji.hints.Preempt && j.Requeue || j.Claim.Distrust || j.Claim.Factor < BindRecordFactor ||
		j.TimeLimit <= 0 || pl.dur <= 0 || pl.w <= 0 {
		return
	}
	if _, r := ji.model.claimedDuration(j, pl.w, pl.p, c.nodeGPUs(ji), ji.kappa, c.o); r != ReasonModelled {
		return
	}
	slowest := pl.dur
	if w := max(1, ji.gmin); w < pl.w {
		if raw, r := ji.model.claimedDuration(j, w, pl.p, c.nodeGPUs(ji), ji.kappa, c.o); r == ReasonModelled && raw > 0 {
			slowest = max(slowest, corrected(j, raw))
		}
	}
	lim := BoundLimit(slowest, c.o.ClaimMargin, c.o.ClaimFloor)
	if float64(j.TimeLimit) < bindTrigger*float64(lim) {
		return
	}
	margin, floor := c.o.ClaimMargin, c.o.ClaimFloor
	if margin <= 0 {
		margin = DefaultClaimMargin
	}
	if floor <= 0 {
		floor = DefaultClaimFloor
	}
	d.TimeLimit = lim
	d.Reasons = append(d.Reasons, ReasonClaimBound)
	d.Detail = joinDetail(d.Detail, fmt.Sprintf("time limit lowered from %s to %s (%g× the predicted run time %s, at least %s)",
		limitText(j.TimeLimit), limitText(lim), margin, slowest.Round(time.Second), limitText(max(floor, MinBoundLimit))))
}

// claimed sets d.Claimed: the prediction before the user's record
// corrected it, when it did.
func (c *cycle) claimed(pl *planned, d *Decision) {
	ji := pl.ji
	if ji.job.Claim.IsZero() || pl.dur <= 0 || pl.w <= 0 {
		return
	}
	if raw, _ := ji.model.claimedDuration(ji.job, pl.w, pl.p, c.nodeGPUs(ji), ji.kappa, c.o); raw > 0 {
		d.Claimed = raw
	}
}

// nodeGPUs is the node size the time model of ji uses (durationAt).
func (c *cycle) nodeGPUs(ji *jobInfo) int {
	if ji.isl != nil && ji.isl.maxGPN > 0 {
		return ji.isl.maxGPN
	}
	return c.o.NodeGPUs
}

// limitText writes a time limit as Slurm does ([D-]HH:MM:SS).
func limitText(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	days, s := s/86400, s%86400
	t := fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
	if days > 0 {
		return fmt.Sprintf("%d-%s", days, t)
	}
	return t
}
