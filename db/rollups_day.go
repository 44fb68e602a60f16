package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// day is the length of a UTC day; time.Truncate by it gives UTC midnight.
const day = 24 * time.Hour

// dayBounds returns the UTC midnights around [lo, hi): the first day that
// holds lo and the end of the day that holds the last instant before hi.
func dayBounds(lo, hi time.Time) (time.Time, time.Time) {
	return lo.UTC().Truncate(day), hi.UTC().Add(-time.Nanosecond).Truncate(day).Add(day)
}

// rebuildDays rebuilds the daily rollups (job_host_day) of the UTC days that
// [lo, hi) touches from their hourly rows, in tx.
func (s *Store) rebuildDays(ctx context.Context, tx pgx.Tx, lo, hi time.Time) error {
	del, err := s.q.get("DeleteJobHostDays")
	if err != nil {
		return err
	}
	ins, err := s.q.get("InsertJobHostDays")
	if err != nil {
		return err
	}
	dlo, dhi := dayBounds(lo, hi)
	if _, err := tx.Exec(ctx, del, dlo, dhi); err != nil {
		return fmt.Errorf("daily rollups: %w", err)
	}
	if _, err := tx.Exec(ctx, ins, dlo, dhi); err != nil {
		return fmt.Errorf("daily rollups: %w", err)
	}
	return nil
}

// CheckDayRollups compares the daily rollups of the UTC days touching
// [from, to) with the hourly rows they sum, rebuilds every day that
// disagrees (a row missing on either side, or other sums: hourly rows
// written or deleted by hand, or a refresh of an older Strata), and returns
// those days (nil: all agreed). The caller logs them.
func (s *Store) CheckDayRollups(ctx context.Context, from, to time.Time) ([]time.Time, error) {
	if !from.Before(to) {
		return nil, fmt.Errorf("check daily rollups: start %v is not before end %v", from, to)
	}
	q, err := s.q.get("DayRollupMismatches")
	if err != nil {
		return nil, err
	}
	dlo, dhi := dayBounds(from, to)
	rows, err := s.pool.Query(ctx, q, dlo, dhi)
	if err != nil {
		return nil, interpretError("check daily rollups", err)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return nil, interpretError("check daily rollups", err)
	}
	if len(days) == 0 {
		return nil, nil
	}
	for i, d := range days {
		days[i] = d.UTC()
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			return s.rebuildDays(ctx, tx, days[i], days[i].Add(day))
		})
		if err != nil {
			return nil, interpretError("rebuild daily rollups", err)
		}
	}
	return days, nil
}
