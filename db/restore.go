package db

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// RestorePolicy is the policy of the audit-trail cycles `strata restore`
// stores: its writes, kept apart from the planner's (RestoreTrail leaves
// them out).
const RestorePolicy = "restore"

// RestoreAction is the action of the decisions `strata restore` stores.
const RestoreAction planner.Action = "restore"

// JobTrail is what the audit trail holds of one job for `strata restore`:
// the job as Strata first recorded it (before any write of Strata's) and
// the bodies of the writes that took effect, oldest first.
type JobTrail struct {
	// FirstGPUs, FirstPartition and FirstPriority are the job's GPUs in
	// total, partition and priority in its first stored decision.
	FirstGPUs      int    `json:"first_gpus"`
	FirstPartition string `json:"first_partition"`
	FirstPriority  int64  `json:"first_priority"`
	// Applied are the JSON bodies of Strata's applied writes since the
	// last `strata restore` of the job, oldest first.
	Applied []string `json:"applied,omitempty"`
}

// RestoreTrail returns, for the given jobs of a cluster (job ID → submit
// time), what the audit trail recorded of each since its submission (so
// that a reused job ID does not inherit an older job's trail). Jobs never
// recorded are absent.
func (s *Store) RestoreTrail(ctx context.Context, cluster string, jobs map[int64]time.Time) (map[int64]JobTrail, error) {
	out := map[int64]JobTrail{}
	if len(jobs) == 0 {
		return out, nil
	}
	q, err := s.q.get("RestoreTrail")
	if err != nil {
		return nil, err
	}
	ids, since := jobsSince(jobs)
	rows, err := s.pool.Query(ctx, q, cluster, ids, since)
	if err != nil {
		return nil, interpretError("read the audit trail for restore", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, cycle, prio, restored int64
			gpus                      int32
			part, outcome             string
			body                      string
		)
		if err := rows.Scan(&id, &cycle, &gpus, &part, &prio, &outcome, &body, &restored); err != nil {
			return nil, interpretError("read the audit trail for restore", err)
		}
		t, seen := out[id]
		if !seen {
			t = JobTrail{FirstGPUs: int(gpus), FirstPartition: part, FirstPriority: prio}
		}
		if outcome == "applied" && body != "" && cycle > restored { // writes a restore undid are not Strata's now
			t.Applied = append(t.Applied, body)
		}
		out[id] = t
	}
	return out, interpretError("read the audit trail for restore", rows.Err())
}

// LoweredLimit is Strata's latest write that lowered a job's time limit.
type LoweredLimit struct {
	Cycle     int64         `json:"cycle"`
	WrittenAt time.Time     `json:"written_at"`
	Limit     time.Duration `json:"limit"`
	// Detail is the decision's detail, which says from what.
	Detail string `json:"detail,omitempty"`
}

// LoweredLimit returns the latest applied write that lowered job id's time
// limit, unless `strata restore` wrote the job since; ErrNotFound when
// there is none.
func (s *Store) LoweredLimit(ctx context.Context, id int64, cluster string) (LoweredLimit, error) {
	q, err := s.q.get("LoweredLimit")
	if err != nil {
		return LoweredLimit{}, err
	}
	var ll LoweredLimit
	var secs float64
	err = s.pool.QueryRow(ctx, q, id, cluster).Scan(&ll.Cycle, &ll.WrittenAt, &secs, &ll.Detail)
	ll.Limit = time.Duration(secs * float64(time.Second))
	return ll, interpretError(fmt.Sprintf("lowered limit of job %d", id), err)
}
