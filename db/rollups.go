package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// JobEnergy is a job's energy on one UTC day (or, from JobEnergyTotal, over
// all days, with Day zero), summed from the hourly per-job, per-GPU rollups
// that the reports read (job_gpu_hour, filled by RefreshReportRollups): one
// definition of per-job energy.
type JobEnergy struct {
	JobID int64
	Day   time.Time
	// EnergyJ is the GPU energy in joules, from counter deltas.
	EnergyJ float64
	// GPUSeconds is the GPU time held (sum over the job's GPUs).
	GPUSeconds float64
	// UtilGPUSeconds is Σ utilisation × sampled time / 100: MeanUtil()
	// divides it by CoveredSeconds.
	UtilGPUSeconds float64
	// IdleGPUSeconds and IdleEnergyJ cover the held time during which the
	// GPU's utilisation was below the idle threshold of the rollup refresh
	// (DefaultIdleUtilPct unless `strata report refresh --idle-below` set
	// another).
	IdleGPUSeconds float64
	IdleEnergyJ    float64
	// CoveredSeconds is the held GPU time covered by samples; less than
	// GPUSeconds means gaps in telemetry.
	CoveredSeconds float64
	// CounterResets counts segments in which an energy counter restarted.
	CounterResets int
}

// MeanUtil is the time-weighted mean GPU utilisation in percent over the
// sampled time (the energy report's MeanUtil).
func (e JobEnergy) MeanUtil() float64 {
	if e.CoveredSeconds == 0 {
		return 0
	}
	return 100 * e.UtilGPUSeconds / e.CoveredSeconds
}

// RefreshRollups refreshes the hourly rollups (RefreshReportRollups, with
// the default idle threshold) of every hour from the start of the earliest
// assignment open or ended at or after since up to now, and returns the
// jobs of those assignments.
func (s *Store) RefreshRollups(ctx context.Context, since, now time.Time) ([]int64, error) {
	q, err := s.q.get("JobsTouchedSince")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, since)
	if err != nil {
		return nil, interpretError("refresh rollups", err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, interpretError("refresh rollups", err)
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	q, err = s.q.get("TouchedFrom")
	if err != nil {
		return nil, err
	}
	var from *time.Time
	if err := s.pool.QueryRow(ctx, q, since).Scan(&from); err != nil {
		return nil, interpretError("refresh rollups", err)
	}
	if from == nil || !from.Before(now) {
		return jobs, nil
	}
	if _, err := s.RefreshReportRollups(ctx, *from, now, 0); err != nil {
		return nil, err
	}
	return jobs, nil
}

// JobEnergyDays returns the rollups of one job id, one per UTC day, or
// ErrNotFound when it has none. Every cluster's job of that id counts, and
// every job that reused the id: use EnergyReport with a cluster filter and
// a window to tell them apart.
func (s *Store) JobEnergyDays(ctx context.Context, job int64) ([]JobEnergy, error) {
	q, err := s.q.get("JobEnergyDays")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, job)
	if err != nil {
		return nil, interpretError("job energy", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (JobEnergy, error) {
		e := JobEnergy{JobID: job}
		err := r.Scan(&e.Day, &e.EnergyJ, &e.GPUSeconds, &e.UtilGPUSeconds, &e.IdleGPUSeconds,
			&e.IdleEnergyJ, &e.CoveredSeconds, &e.CounterResets)
		e.Day = e.Day.UTC()
		return e, err
	})
	if err != nil {
		return nil, interpretError("job energy", err)
	}
	if len(out) == 0 {
		return nil, interpretError("job energy", pgx.ErrNoRows)
	}
	return out, nil
}

// JobEnergyTotal sums a job's daily rollups.
func (s *Store) JobEnergyTotal(ctx context.Context, job int64) (JobEnergy, error) {
	days, err := s.JobEnergyDays(ctx, job)
	if err != nil {
		return JobEnergy{}, err
	}
	t := JobEnergy{JobID: job}
	for _, d := range days {
		t.EnergyJ += d.EnergyJ
		t.GPUSeconds += d.GPUSeconds
		t.UtilGPUSeconds += d.UtilGPUSeconds
		t.IdleGPUSeconds += d.IdleGPUSeconds
		t.IdleEnergyJ += d.IdleEnergyJ
		t.CoveredSeconds += d.CoveredSeconds
		t.CounterResets += d.CounterResets
	}
	return t, nil
}
