package db

import (
	"context"
	"time"
)

// FinishedJob is one completed job, for duration prediction from history.
type FinishedJob struct {
	User, Name, Partition string
	GPUs                  int
	Start, End            time.Time
}

// FinishedJobs returns the jobs of cluster ("" = any) that completed after
// since, oldest first, at most limit.
func (s *Store) FinishedJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]FinishedJob, error) {
	q, err := s.q.get("FinishedJobs")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, cluster, since, limit)
	if err != nil {
		return nil, interpretError("read finished jobs", err)
	}
	defer rows.Close()
	var out []FinishedJob
	for rows.Next() {
		var j FinishedJob
		if err := rows.Scan(&j.User, &j.Name, &j.Partition, &j.GPUs, &j.Start, &j.End); err != nil {
			return nil, interpretError("read finished jobs", err)
		}
		j.Start, j.End = j.Start.UTC(), j.End.UTC()
		out = append(out, j)
	}
	return out, interpretError("read finished jobs", rows.Err())
}
