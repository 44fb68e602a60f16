package slurm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// ApplyOptions control Apply.
type ApplyOptions struct {
	// DryRun computes every request body (after re-reading each job) but
	// sends nothing.
	DryRun bool
	// Cycle numbers the plan cycle in the admin comment.
	Cycle int64
	// Nodes, when set, are the nodes of the snapshot the decisions were
	// planned from, used for the shape check; nil = read them again.
	Nodes []planner.Node
	// Now is the snapshot's time: a begin time Strata set that is still
	// ahead of it is released when the decision wants none.
	Now time.Time
	// Preemptible says whether a running job may be sent its checkpoint
	// signal, and which (e.g. "USR1"): the job opted in by its hint. Nil:
	// no job is ever signalled. Apply also requires Slurm's record to allow
	// a requeue and the job not to have ignored an earlier signal.
	Preemptible func(planner.Job) (signal string, ok bool)
	// Fence, when set, is called right before each write is sent (not in a
	// dry run): an error (the writer lock is lost) stops the writes, and
	// this and every later decision are reported not-sent. It fences the
	// writes of a daemon that lost its lock in the middle of a cycle.
	Fence func(ctx context.Context) error
}

// ApplyResult is the outcome for one job. Body is the JSON request body
// sent (or, in dry-run, that would be sent).
type ApplyResult struct {
	JobID   int64          `json:"job_id"`
	Outcome decide.Outcome `json:"outcome"`
	Body    string         `json:"body,omitempty"`
	Detail  string         `json:"detail,omitempty"`
	// Guard names, in the guards' vocabulary, the rule that kept a skipped
	// write back at write time (the job held, no longer pending, opted out,
	// no longer running): the audit trail's guard column says one fact one
	// way whether the guard saw it in the snapshot or the writer on re-read.
	Guard decide.Name `json:"guard,omitempty"`
	Err   error       `json:"-"`
}

// ApplyReport lists one result per ActionUpdate decision, in input order.
type ApplyReport struct {
	DryRun  bool          `json:"dry_run"`
	Results []ApplyResult `json:"results"`
	// APIVersion is the slurmrestd OpenAPI version the requests were (or,
	// dry, would be) sent with, e.g. "v0.0.44".
	APIVersion string `json:"api_version,omitempty"`
}

// Count is the number of results with outcome o.
func (r ApplyReport) Count(o decide.Outcome) int {
	n := 0
	for _, x := range r.Results {
		if x.Outcome == o {
			n++
		}
	}
	return n
}

// Apply writes the ActionUpdate decisions to Slurm; other actions are
// ignored. For each, the job is re-read first and written only while still
// PENDING: its priority (Decision.Priority > 0), its GPU request
// (tres_per_node, or tres_per_job when the job asked per job; minimum and
// maximum node count when it changes) and the admin comment "strata: workers=W ps=P rank=R
// cycle=C". A GPU shape that no usable node can hold is refused. After a
// write the job is read back and compared. Per-job problems are results,
// not errors; the error is for "could not apply at all" (ctx cancelled,
// nodes unreadable). A failed write is not retried: the next cycle plans
// from a fresh snapshot.
func (c *Client) Apply(ctx context.Context, decisions []planner.Decision, opts ApplyOptions) (ApplyReport, error) {
	rep := ApplyReport{DryRun: opts.DryRun, APIVersion: c.version}
	nodes := opts.Nodes
	var fenced error
	for _, d := range decisions {
		if d.Action != planner.ActionUpdate && d.Action != planner.ActionPreempt && d.Action != planner.ActionMarkNonCooperative {
			continue
		}
		if fenced != nil {
			rep.Results = append(rep.Results, skipped(ApplyResult{JobID: d.JobID}, decide.NotSent, "not sent: "+fenced.Error(), nil))
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("apply: %w", err)
		}
		if d.GPUsPerNode > 0 && nodes == nil {
			var err error
			if nodes, err = c.api.nodes(ctx); err != nil {
				return rep, fmt.Errorf("apply: %w", err)
			}
		}
		var r ApplyResult
		switch d.Action {
		case planner.ActionPreempt:
			r = c.preemptOne(ctx, d, opts)
		case planner.ActionMarkNonCooperative:
			r = c.markOne(ctx, d, opts)
		default:
			r = c.applyOne(ctx, d, nodes, opts)
		}
		if errors.Is(r.Err, errFenced) {
			fenced = r.Err
		}
		c.log.Debug().Int64("job_id", r.JobID).Str("outcome", string(r.Outcome)).Str("detail", r.Detail).Msg("apply decision")
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// reread reads job id again before a write; ok false with the result when
// it is gone or cannot be read.
func (c *Client) reread(ctx context.Context, res ApplyResult) (planner.Job, ApplyResult, bool) {
	cur, err := c.api.job(ctx, res.JobID)
	switch {
	case errors.Is(err, ErrNotFound):
		return cur, skipped(res, decide.SkippedGone, "job no longer known to slurmctld", nil), false
	case err != nil:
		return cur, skipped(res, decide.Failed, err.Error(), err), false
	}
	return cur, res, true
}

func (c *Client) applyOne(ctx context.Context, d planner.Decision, nodes []planner.Node, opts ApplyOptions) ApplyResult {
	cur, res, ok := c.reread(ctx, ApplyResult{JobID: d.JobID})
	switch {
	case !ok:
		return res
	case cur.State != planner.JobPending:
		return skipped(res, decide.SkippedNotPending, "job is "+string(cur.State), nil)
	case decide.IsHeld(cur):
		return skipped(res, decide.SkippedHeld, "job is held ("+cur.Reason+"); a new priority would fail or release it", nil)
	case decide.OptedOut(cur):
		return skipped(res, decide.SkippedOptOut, "the job's hint now says rewrite=no (or no longer parses)", nil)
	case cur.ArrayJobID != 0 || cur.HetJobID != 0:
		return skipped(res, decide.Refused, "job array or heterogeneous job: one write would change every task or component", nil)
	}
	if d.Partition != "" && d.Partition != cur.Partition && !slices.Contains(cur.Partitions, d.Partition) &&
		d.Partition != strings.Join(cur.Partitions, ",") {
		return skipped(res, decide.Refused, fmt.Sprintf("partition %s is not one the job lists (%s)", d.Partition, cur.Partition), nil)
	}
	u, changed := jobUpdateFor(cur, d, opts.Cycle, opts.Now)
	if d.GPUsPerNode > 0 {
		if why := shapeFits(d, cur.GPUType, nodes); why != "" {
			return skipped(res, decide.Refused, why, nil)
		}
	}
	if !changed {
		return skipped(res, decide.Unchanged, "job already matches the decision", nil)
	}
	body, err := c.api.updateBody(u)
	if err != nil {
		return skipped(res, decide.Failed, err.Error(), err)
	}
	res.Body = string(body)
	if stop, ok := holdBack(ctx, res, opts); ok {
		return stop
	}
	u, err = c.updateWhenFree(ctx, d.JobID, u)
	if u.empty() && err == nil {
		return skipped(res, decide.Unchanged, "only Strata's admin comment would change, which user "+c.cfg.User+" may not write", nil)
	}
	if body, berr := c.api.updateBody(u); berr == nil {
		res.Body = string(body) // what was sent
	}
	if err != nil {
		if errors.Is(err, ErrNotPending) {
			return skipped(res, decide.SkippedNotPending, err.Error(), nil)
		}
		if errors.Is(err, ErrNotFound) {
			return skipped(res, decide.SkippedGone, err.Error(), nil)
		}
		err = c.explainPermission(err, u)
		return skipped(res, decide.Failed, err.Error(), err)
	}
	if err := c.verify(ctx, d.JobID, u); err != nil {
		return skipped(res, decide.Failed, err.Error(), err)
	}
	res.Outcome = decide.Applied
	return res
}

// holdBack says whether a write whose body is computed stops here: in a
// dry run, or when the writer lock fails its fence check right before it.
func holdBack(ctx context.Context, res ApplyResult, opts ApplyOptions) (ApplyResult, bool) {
	if opts.DryRun {
		return skipped(res, decide.DryRun, "not sent (dry run)", nil), true
	}
	if opts.Fence != nil {
		if err := opts.Fence(ctx); err != nil {
			err = fmt.Errorf("%w: %w", errFenced, err)
			return skipped(res, decide.NotSent, "not sent: "+err.Error(), err), true
		}
	}
	return res, false
}

// errFenced marks a write stopped by ApplyOptions.Fence.
var errFenced = errors.New("write fenced (writer lock lost)")

func skipped(r ApplyResult, o decide.Outcome, detail string, err error) ApplyResult {
	r.Outcome, r.Detail, r.Err = o, detail, err
	r.Guard = decide.GuardOf(o)
	return r
}
