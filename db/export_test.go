package db

import "context"

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
