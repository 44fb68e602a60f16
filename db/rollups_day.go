package db

import (
	"context"
	"fmt"
	"slices"
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

// rebuildDays rebuilds the daily rollups (job_host_day) and the group and
// per-job rollups (energy_group_day, energy_job_day) of the UTC days that [lo, hi) touches from
// their hourly rows, in tx, marks the later days of the jobs they hold
// dirty (their first day may move), and with dirty rebuilds every dirty
// day's groups.
func (s *Store) rebuildDays(ctx context.Context, tx pgx.Tx, lo, hi time.Time, dirty bool) error {
	dlo, dhi := dayBounds(lo, hi)
	steps := []string{"ClearDirtyDays", "MarkLaterDaysDirty", "DeleteJobHostDays", "InsertJobHostDays",
		"MarkLaterDaysDirty", "DeleteEnergyGroupDays", "InsertEnergyGroupDays", "DeleteEnergyJobDays",
		"InsertEnergyJobDays"}
	for _, name := range steps {
		q, err := s.q.get(name)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, q, dlo, dhi); err != nil {
			return fmt.Errorf("daily rollups: %s: %w", name, err)
		}
	}
	if !dirty {
		return nil
	}
	return s.rebuildDirtyDays(ctx, tx)
}

// rebuildDirtyDays rebuilds the group and per-job rollups of the days marked dirty (a
// job row changed its group, or a rebuild before moved a job's first day),
// in tx.
func (s *Store) rebuildDirtyDays(ctx context.Context, tx pgx.Tx) error {
	q, err := s.q.get("DirtyDays")
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("dirty days: %w", err)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return fmt.Errorf("dirty days: %w", err)
	}
	for _, d := range days {
		for _, name := range []string{"ClearDirtyDays", "DeleteEnergyGroupDays", "InsertEnergyGroupDays",
			"DeleteEnergyJobDays", "InsertEnergyJobDays"} {
			q, err := s.q.get(name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, q, d, d.Add(day)); err != nil {
				return fmt.Errorf("dirty day %s: %s: %w", d.UTC().Format(time.DateOnly), name, err)
			}
		}
	}
	return nil
}

// CheckDayRollups compares the daily rollups (job_host_day) and the group
// and per-job rollups (energy_group_day, energy_job_day) of the UTC days
// touching [from, to) with the hourly rows they sum (and, for the latter,
// the job rows), rebuilds every
// day that disagrees (a row missing on either side, or other sums: hourly
// rows written or deleted by hand, a job row changed without its trigger,
// or a refresh of an older Strata) or is marked dirty, and returns those
// days in order (nil: all agreed). The caller logs them.
func (s *Store) CheckDayRollups(ctx context.Context, from, to time.Time) ([]time.Time, error) {
	if !from.Before(to) {
		return nil, fmt.Errorf("check daily rollups: start %v is not before end %v", from, to)
	}
	dlo, dhi := dayBounds(from, to)
	days, err := s.mismatchedDays(ctx, "DayRollupMismatches", dlo, dhi)
	if err != nil {
		return nil, err
	}
	if err := s.rebuildEach(ctx, days); err != nil {
		return nil, err
	}
	var groups []time.Time
	if len(days) < int(dhi.Sub(dlo)/day) { // else every day was just rebuilt
		if groups, err = s.mismatchedDays(ctx, "GroupDayMismatches", dlo, dhi); err != nil {
			return nil, err
		}
		jobs, err := s.mismatchedDays(ctx, "JobDayMismatches", dlo, dhi)
		if err != nil {
			return nil, err
		}
		groups = append(groups, jobs...)
		slices.SortFunc(groups, time.Time.Compare)
		groups = slices.Compact(groups)
	}
	if err := s.rebuildEach(ctx, groups); err != nil {
		return nil, err
	}
	seen := map[time.Time]bool{}
	for _, d := range days {
		seen[d] = true
	}
	for _, d := range groups {
		if !seen[d] {
			days = append(days, d)
		}
	}
	if len(days) == 0 {
		return nil, nil
	}
	slices.SortFunc(days, time.Time.Compare)
	return days, nil
}

// mismatchedDays runs a check query over the UTC days [dlo, dhi).
func (s *Store) mismatchedDays(ctx context.Context, name string, dlo, dhi time.Time) ([]time.Time, error) {
	q, err := s.q.get(name)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, dlo, dhi)
	if err != nil {
		return nil, interpretError("check daily rollups", err)
	}
	days, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (time.Time, error) {
		t, err := pgx.RowTo[time.Time](r)
		return t.UTC(), err
	})
	return days, interpretError("check daily rollups", err)
}

// rebuildEach rebuilds each day's rollups in a transaction of its own, in
// order, then the groups of the days left dirty.
func (s *Store) rebuildEach(ctx context.Context, days []time.Time) error {
	if len(days) == 0 {
		return nil
	}
	for _, d := range days {
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			return s.rebuildDays(ctx, tx, d, d.Add(day), false)
		})
		if err != nil {
			return interpretError("rebuild daily rollups", err)
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.rebuildDirtyDays(ctx, tx) })
	return interpretError("rebuild daily rollups", err)
}
