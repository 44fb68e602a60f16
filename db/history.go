package db

import (
	"context"
	"strings"
	"time"
)

// FinishedJob is one completed job, for duration prediction from history.
type FinishedJob struct {
	User, Name, Partition string
	GPUs                  int
	Start, End            time.Time
	// TimeLimit is the limit it ran under (0: none, or recorded before
	// Strata kept limits).
	TimeLimit time.Duration
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
		var limit float64
		if err := rows.Scan(&j.User, &j.Name, &j.Partition, &j.GPUs, &j.Start, &j.End, &limit); err != nil {
			return nil, interpretError("read finished jobs", err)
		}
		j.TimeLimit = seconds(limit)
		j.Start, j.End = j.Start.UTC(), j.End.UTC()
		out = append(out, j)
	}
	return out, interpretError("read finished jobs", rows.Err())
}

// PredictionRow is one completed job's predicted and real run time.
type PredictionRow struct {
	User, Partition string
	// Source is where the prediction came from: the decision's duration_*
	// reason (modelled, predicted, time_limit, default).
	Source            string
	Predicted, Actual float64 // seconds
	Account           string
	JobID             int64
	End               time.Time
	// Claimed is the prediction (seconds) before the user's record
	// corrected it (0: no correction; Predicted is the prediction).
	Claimed float64
	// TimedOut: the job was stopped at its time limit (Slurm's TIMEOUT),
	// so Actual is a lower bound; SameSize: it ran on the decided GPUs.
	TimedOut, SameSize bool
	// Model and GPUType are the decision's catalog model and GPU type (""
	// when not known: a job timed without a model, or recorded before).
	Model, GPUType string
}

// PredictionReport lists, for each job that completed (or timed out) in
// the window, the run time the planner predicted before it started and
// the real one.
func (s *Store) PredictionReport(ctx context.Context, f ReportFilter) ([]PredictionRow, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	q, err := s.q.get("PredictionReport")
	if err != nil {
		return nil, err
	}
	a := filterArgs(f)
	rows, err := s.pool.Query(ctx, q, f.From, f.To, a[0], a[2], a[4])
	if err != nil {
		return nil, interpretError("prediction report", err)
	}
	defer rows.Close()
	var out []PredictionRow
	for rows.Next() {
		var r PredictionRow
		var reasons []string
		var claimed *float64
		if err := rows.Scan(&r.User, &r.Partition, &reasons, &r.Predicted, &r.Actual,
			&r.Account, &r.JobID, &r.End, &claimed, &r.TimedOut, &r.SameSize, &r.Model, &r.GPUType); err != nil {
			return nil, interpretError("prediction report", err)
		}
		if claimed != nil {
			r.Claimed = *claimed
		}
		r.End = r.End.UTC()
		r.Source = "unknown"
		for _, x := range reasons {
			if strings.HasPrefix(x, "duration_") {
				r.Source = strings.TrimPrefix(x, "duration_")
				break
			}
		}
		out = append(out, r)
	}
	return out, interpretError("prediction report", rows.Err())
}
