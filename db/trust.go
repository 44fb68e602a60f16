package db

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// TrustOutcomes returns the finished jobs of cluster ("" = any) that ended
// after since, oldest first, at most limit, each with what the planner
// predicted for it before its user's record corrected it, what it ran and
// whether the prediction was the hint's (query TrustOutcomes): the input
// of each user's record (planner/trust).
func (s *Store) TrustOutcomes(ctx context.Context, cluster string, since time.Time, limit int) ([]trust.Outcome, error) {
	q, err := s.q.get("TrustOutcomes")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, cluster, since, limit, string(planner.ReasonModelled))
	if err != nil {
		return nil, interpretError("read trust outcomes", err)
	}
	defer rows.Close()
	var out []trust.Outcome
	for rows.Next() {
		var o trust.Outcome
		var pred, real float64
		if err := rows.Scan(&o.User, &o.Account, &o.JobID, &o.End, &pred, &real, &o.TimedOut, &o.GPUs, &o.NoClaim); err != nil {
			return nil, interpretError("read trust outcomes", err)
		}
		o.End = o.End.UTC()
		o.Predicted, o.Real = seconds(pred), seconds(real)
		out = append(out, o)
	}
	return out, interpretError("read trust outcomes", rows.Err())
}

// seconds converts float seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TrustRunning returns, for the running jobs among jobs (a snapshot's:
// state RUNNING with a user and a start), the record's outcome so far at
// now (trust.Outcome.Running: Real is how long each has run), with what
// the planner predicted for it before it started, as TrustOutcomes does
// for ended jobs (query TrustRunning). Jobs with no such prediction are
// left out. The caller keeps those that overran (trust.Overran).
func (s *Store) TrustRunning(ctx context.Context, cluster string, jobs []planner.Job, now time.Time) ([]trust.Outcome, error) {
	by := map[int64]planner.Job{}
	var ids []int64
	var sub, sta []time.Time
	var gpus []int32
	for _, j := range jobs {
		if j.State != planner.JobRunning || j.User == "" || j.StartTime.IsZero() || !now.After(j.StartTime) {
			continue
		}
		by[j.ID] = j
		ids, sub, sta = append(ids, j.ID), append(sub, j.SubmitTime), append(sta, j.StartTime)
		gpus = append(gpus, int32(j.GPUs()))
	}
	if len(ids) == 0 {
		return nil, nil
	}
	q, err := s.q.get("TrustRunning")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, cluster, ids, sub, sta, gpus, string(planner.ReasonModelled))
	if err != nil {
		return nil, interpretError("read running jobs' predictions", err)
	}
	defer rows.Close()
	var out []trust.Outcome
	for rows.Next() {
		var id int64
		var pred float64
		var noClaim bool
		if err := rows.Scan(&id, &pred, &noClaim); err != nil {
			return nil, interpretError("read running jobs' predictions", err)
		}
		j := by[id]
		out = append(out, trust.Outcome{User: j.User, Account: j.Account, JobID: id, End: now.UTC(),
			Predicted: seconds(pred), Real: now.Sub(j.StartTime), GPUs: j.GPUs(), NoClaim: noClaim, Running: true})
	}
	return out, interpretError("read running jobs' predictions", rows.Err())
}
