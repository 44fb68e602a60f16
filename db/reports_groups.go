package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Which day rollups beside job_host_day answer an energy report.
const (
	viaDays   = iota // job_host_day (ReportEnergyDaily) or hours only
	viaGroups        // energy_group_day (ReportEnergyGroups)
	viaJobs          // energy_job_day (ReportEnergyJobs)
)

// groupDays returns the whole UTC days [d1, d2) of an energy report and
// which rollups can answer it: the group rollups when it groups by user,
// account and/or partition only, without a job or state filter; the
// per-job rollups when it groups by job (not node or hour); either with
// buckets none or UTC days and at least one whole UTC day in the window.
func groupDays(q EnergyQuery, bucket, tz string, hourlyOnly bool) (d1, d2 time.Time, via int) {
	if hourlyOnly || energyQuery(bucket, tz, false) != "ReportEnergyDaily" || hasDim(q.By, DimNode) {
		return d1, d2, viaDays
	}
	via = viaJobs
	if !hasDim(q.By, DimJob) {
		if len(q.Jobs) > 0 || len(q.States) > 0 {
			return d1, d2, viaDays
		}
		via = viaGroups
	}
	d1 = q.From.UTC().Add(-time.Nanosecond).Truncate(day).Add(day)
	d2 = q.To.UTC().Truncate(day)
	if !d1.Before(d2) {
		return d1, d2, viaDays
	}
	return d1, d2, via
}

// energyGroups runs the energy report on the group (or per-job: via) rollups
// of the whole days [d1, d2) in tx when ReportGroupDaysUsable says they
// answer it exactly (no dirty day; for groups without buckets, no job with
// a day-long gap); ok false: they do not, and nothing was read.
func (s *Store) energyGroups(ctx context.Context, tx pgx.Tx, q EnergyQuery, bucket string,
	d1, d2 time.Time, via int) (out []EnergyRow, ok bool, err error) {
	usable, err := s.q.get("ReportGroupDaysUsable")
	if err != nil {
		return nil, false, err
	}
	if err := tx.QueryRow(ctx, usable, d1, d2, via == viaGroups && bucket == "").Scan(&ok); err != nil || !ok {
		return nil, false, err
	}
	name := "ReportEnergyGroups"
	f := filterArgs(q.ReportFilter)
	args := append([]any{q.From, q.To}, f[:3]...)
	if via == viaJobs {
		name = "ReportEnergyJobs"
		args = append(args, f[3], bucket, f[4])
		args = append(args, scopeArgs(q.Scope)...)
		args = append(args, nonNil(q.States), d1, d2)
	} else {
		args = append(args, hasDim(q.By, DimUser), hasDim(q.By, DimAccount), hasDim(q.By, DimPartition),
			bucket, f[4])
		args = append(args, scopeArgs(q.Scope)...)
		args = append(args, d1, d2)
	}
	sql, err := s.q.get(name)
	if err != nil {
		return nil, false, err
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, false, err
	}
	out, err = pgx.CollectRows(rows, scanEnergyRow)
	return out, err == nil, err
}
