package db

import (
	"context"
	"time"
)

// CalibrationJob is one completed job as the planner's calibration sees it
// (query CalibrationJobs).
type CalibrationJob struct {
	JobID int64
	End   time.Time
	// User ran the job (the speed factor counts one vote per user).
	User string
	// Model and GPUType are from the planner's last decision before the
	// job started ("" when none was known).
	Model, GPUType string
	// ModelSeconds is the uncalibrated modelled run time at the size the
	// job ran at (0: none); RealSeconds its real run time.
	ModelSeconds, RealSeconds float64
	// BusyEnergyJ and BusyGPUSeconds sum its GPUs' busy samples.
	BusyEnergyJ, BusyGPUSeconds float64
	// TimedOut: the run was stopped before its end — by Slurm at its time
	// limit (TIMEOUT) or cancelled after it started (CANCELLED) — so
	// RealSeconds is a lower bound (calib.Job.Censored).
	TimedOut bool
}

// CalibrationJobs returns the jobs of cluster ("" = any) that completed
// after since and that the planner decided on before they started, oldest
// first, at most limit.
func (s *Store) CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]CalibrationJob, error) {
	q, err := s.q.get("CalibrationJobs")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, cluster, since, limit)
	if err != nil {
		return nil, interpretError("read calibration jobs", err)
	}
	defer rows.Close()
	var out []CalibrationJob
	for rows.Next() {
		var j CalibrationJob
		var model *float64
		if err := rows.Scan(&j.JobID, &j.End, &j.User, &j.Model, &j.GPUType, &model, &j.RealSeconds,
			&j.BusyEnergyJ, &j.BusyGPUSeconds, &j.TimedOut); err != nil {
			return nil, interpretError("read calibration jobs", err)
		}
		if model != nil {
			j.ModelSeconds = *model
		}
		j.End = j.End.UTC()
		out = append(out, j)
	}
	return out, interpretError("read calibration jobs", rows.Err())
}
