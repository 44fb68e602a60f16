package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// migrationLock is the advisory-lock key serialising concurrent migrators.
const migrationLock = 0x5374726174 // "Strat"

// Migrations returns the embedded migrations in version order
// (files migrations/NNN_name.up.sql).
func Migrations() ([]Migration, error) {
	files, err := fs.Glob(migrationFS, "migrations/*.up.sql")
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	var out []Migration
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimPrefix(f, "migrations/"), ".up.sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("load migrations: bad file name %q (want NNN_name.up.sql)", f)
		}
		b, err := migrationFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load migrations: %w", err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := range out {
		if out[i].Version != i+1 {
			return nil, fmt.Errorf("load migrations: versions must be 1..n without gaps, found %d at position %d", out[i].Version, i+1)
		}
	}
	return out, nil
}

// LatestVersion is the schema version this binary expects.
func LatestVersion() (int, error) {
	ms, err := Migrations()
	if err != nil {
		return 0, err
	}
	return len(ms), nil
}

const createVersionTable = `CREATE TABLE IF NOT EXISTS strata_schema_version (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())`

// Migrate applies every migration newer than the database's version, each
// in its own transaction together with its version row, and returns the
// versions applied. Concurrent migrators wait for each other.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	latest, err := LatestVersion()
	if err != nil {
		return nil, err
	}
	return s.MigrateTo(ctx, latest)
}

// MigrateTo applies the migrations newer than the database's version up to
// and including version (to test a migration against data written by the
// schema before it), like Migrate. A database already past version is left
// alone with an error wrapping ErrSchemaAhead; migrations are never undone.
func (s *Store) MigrateTo(ctx context.Context, version int) ([]int, error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	if version < 0 || version > len(ms) {
		return nil, fmt.Errorf("migrate to %d: this strata knows versions 1..%d", version, len(ms))
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, interpretError("migrate", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return nil, interpretError("migrate: lock", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
	if _, err := conn.Exec(ctx, createVersionTable); err != nil {
		return nil, interpretError("migrate: version table", err)
	}
	cur, err := versionOn(ctx, conn.Conn())
	if err != nil {
		return nil, err
	}
	if cur > version {
		return nil, fmt.Errorf("migrate to %d: at version %d: %w", version, cur, ErrSchemaAhead)
	}
	var applied []int
	for _, m := range ms[cur:version] {
		if err := applyOne(ctx, conn.Conn(), m); err != nil {
			return applied, err
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}

func applyOne(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO strata_schema_version (version, name) VALUES ($1, $2)", m.Version, m.Name)
		return err
	})
	return interpretError(fmt.Sprintf("migrate: apply %03d_%s", m.Version, m.Name), err)
}

func versionOn(ctx context.Context, conn *pgx.Conn) (int, error) {
	var v int
	err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM strata_schema_version`).Scan(&v)
	return v, interpretError("read schema version", err)
}

// SchemaVersion returns the database's schema version (0 when never
// migrated).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('strata_schema_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, interpretError("read schema version", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM strata_schema_version`).Scan(&v)
	return v, interpretError("read schema version", err)
}

// CheckSchema returns nil when the database is at exactly the version this
// binary expects, else an error wrapping ErrSchemaBehind or ErrSchemaAhead.
// The daemon and collector call it before starting.
func (s *Store) CheckSchema(ctx context.Context) error {
	want, err := LatestVersion()
	if err != nil {
		return err
	}
	got, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	switch {
	case got < want:
		return fmt.Errorf("check schema: at version %d, want %d: %w", got, want, ErrSchemaBehind)
	case got > want:
		return fmt.Errorf("check schema: at version %d, want %d: %w", got, want, ErrSchemaAhead)
	}
	return nil
}
