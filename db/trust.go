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
