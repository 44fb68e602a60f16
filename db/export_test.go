package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// QueryRowForTest runs one query on the store's own pool (its
// connections' settings) and scans its single row into dest.
func (s *Store) QueryRowForTest(ctx context.Context, q string, dest ...any) error {
	return s.pool.QueryRow(ctx, q).Scan(dest...)
}

// EnergyReportHourlyOnly is EnergyReport reading only the hourly rollups
// (ReportEnergy), as every report did before the daily rollups.
func (s *Store) EnergyReportHourlyOnly(ctx context.Context, q EnergyQuery) ([]EnergyRow, error) {
	return s.energyReport(ctx, q, true)
}

// EnergyReportGroupsOnly runs the energy report on the group or per-job
// rollups alone (energyGroups); used is false when they cannot answer it exactly (or the
// query is not theirs), and then nothing was read.
func (s *Store) EnergyReportGroupsOnly(ctx context.Context, q EnergyQuery) (rows []EnergyRow, used bool, err error) {
	bucket := ""
	if hasDim(q.By, DimDay) {
		bucket = "day"
	}
	d1, d2, via := groupDays(q, bucket, "UTC", false)
	if via == viaDays || hasDim(q.By, DimHour) {
		return nil, false, nil
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, used, err = s.energyGroups(ctx, tx, q, bucket, d1, d2, via)
		return err
	})
	return rows, used, err
}
