package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// JobEnergy is the energy rollup of one job on one UTC day (or, from
// JobEnergyTotal, over all days, with Day zero).
type JobEnergy struct {
	JobID int64
	Day   time.Time
	// EnergyJ is the GPU energy in joules, from counter deltas.
	EnergyJ float64
	// GPUSeconds is the GPU time held (sum over the job's GPUs).
	GPUSeconds float64
	// UtilGPUSeconds is Σ utilisation × time / 100: MeanUtil() divides it
	// by GPUSeconds.
	UtilGPUSeconds float64
	// IdleGPUSeconds and IdleEnergyJ cover the held time during which the
	// GPU ran no kernel (utilisation below 1 %).
	IdleGPUSeconds float64
	IdleEnergyJ    float64
	// CoveredSeconds is the held GPU time covered by samples; less than
	// GPUSeconds means gaps in telemetry.
	CoveredSeconds float64
	// CounterResets counts segments in which an energy counter restarted.
	CounterResets int
}

// MeanUtil is the time-weighted mean GPU utilisation in percent.
func (e JobEnergy) MeanUtil() float64 {
	if e.GPUSeconds == 0 {
		return 0
	}
	return 100 * e.UtilGPUSeconds / e.GPUSeconds
}

// RollupJobs recomputes the energy rollups of the given jobs from their
// assignments and samples, replacing earlier rollups. Open assignments count
// up to now. It returns the number of (job, day) rows written.
func (s *Store) RollupJobs(ctx context.Context, jobs []int64, now time.Time) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	del, err := s.q.get("DeleteRollups")
	if err != nil {
		return 0, err
	}
	ins, err := s.q.get("InsertRollups")
	if err != nil {
		return 0, err
	}
	var n int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, del, jobs); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, ins, jobs, now)
		n = tag.RowsAffected()
		return err
	})
	return int(n), interpretError("rollup jobs", err)
}

// RefreshRollups recomputes the rollups of every job whose assignments are
// open or ended at or after since, and returns those jobs.
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
	if _, err := s.RollupJobs(ctx, jobs, now); err != nil {
		return nil, err
	}
	return jobs, nil
}

// JobEnergyDays returns the rollups of one job, one per UTC day, or
// ErrNotFound when the job has none.
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
		var e JobEnergy
		err := r.Scan(&e.JobID, &e.Day, &e.EnergyJ, &e.GPUSeconds, &e.UtilGPUSeconds, &e.IdleGPUSeconds,
			&e.IdleEnergyJ, &e.CoveredSeconds, &e.CounterResets)
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
