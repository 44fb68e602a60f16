package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// groupDays returns the whole UTC days [d1, d2) of an energy report that
// the group rollups (energy_group_day) can answer, and ok: grouped by
// user, account and/or partition only, buckets none or UTC days, no job
// or state filter, and at least one whole UTC day in the window.
func groupDays(q EnergyQuery, bucket, tz string, hourlyOnly bool) (d1, d2 time.Time, ok bool) {
	if hourlyOnly || len(q.Jobs) > 0 || len(q.States) > 0 || energyQuery(bucket, tz, false) != "ReportEnergyDaily" {
		return d1, d2, false
	}
	for _, d := range q.By {
		if d != DimUser && d != DimAccount && d != DimPartition && d != DimDay {
			return d1, d2, false
		}
	}
	d1 = q.From.UTC().Add(-time.Nanosecond).Truncate(day).Add(day)
	d2 = q.To.UTC().Truncate(day)
	return d1, d2, d1.Before(d2)
}

// energyGroups runs the energy report on the group rollups of the whole
// days [d1, d2) in tx when ReportGroupDaysUsable says they answer it
// exactly (no dirty day, no job with a day-long gap); ok false: they do
// not, and nothing was read.
func (s *Store) energyGroups(ctx context.Context, tx pgx.Tx, q EnergyQuery, bucket string,
	d1, d2 time.Time) (out []EnergyRow, ok bool, err error) {
	usable, err := s.q.get("ReportGroupDaysUsable")
	if err != nil {
		return nil, false, err
	}
	if err := tx.QueryRow(ctx, usable, d1, d2, bucket == "").Scan(&ok); err != nil || !ok {
		return nil, false, err
	}
	sql, err := s.q.get("ReportEnergyGroups")
	if err != nil {
		return nil, false, err
	}
	f := filterArgs(q.ReportFilter)
	args := append([]any{q.From, q.To}, f[:3]...)
	args = append(args, hasDim(q.By, DimUser), hasDim(q.By, DimAccount), hasDim(q.By, DimPartition),
		bucket, f[4])
	args = append(args, scopeArgs(q.Scope)...)
	args = append(args, d1, d2)
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, false, err
	}
	out, err = pgx.CollectRows(rows, scanEnergyRow)
	return out, err == nil, err
}
