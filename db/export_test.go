package db

import "context"

// QueryRowForTest runs one query on the store's own pool (its
// connections' settings) and scans its single row into dest.
func (s *Store) QueryRowForTest(ctx context.Context, q string, dest ...any) error {
	return s.pool.QueryRow(ctx, q).Scan(dest...)
}
