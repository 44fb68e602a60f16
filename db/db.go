// Package db stores GPU telemetry, GPU→job assignments, jobs and per-job
// energy rollups in Postgres. It exposes domain methods only: no pgx type
// appears in its API. SQL lives in embedded .sql files (migrations/,
// queries/); every query takes parameters, never interpolated values.
package db

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Config says how to reach Postgres.
type Config struct {
	// URL is a postgres:// URL or a key=value DSN. It may carry the password
	// (then it must come from the environment, never argv).
	URL string
	// Password, when set, overrides any password in URL (read from a
	// password file by the caller).
	Password string
	// MaxConns bounds the pool (0: pgx's default).
	MaxConns int32
}

// Redacted returns URL with any password replaced by "xxxxx", for logs.
func (c Config) Redacted() string {
	u, err := url.Parse(c.URL)
	if err != nil || u.User == nil {
		return c.URL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Store is the Postgres-backed store. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	q       queries
	partMu  sync.Mutex
	partsOK map[int64]bool // daily sample partitions known to exist (Unix day start)
	gpuMu   sync.Mutex
	gpus    map[string]gpuMeta // GPU rows written, by UUID
}

// Open connects (lazily: the first query dials) and loads the embedded
// queries. Sessions run in UTC so day boundaries are UTC days.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URL == "" {
		return nil, errors.New("open database: no URL (set --database-url or STRATA_DATABASE_URL)")
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open database: parse URL: %w", errors.New(redactParseError(err)))
	}
	if cfg.Password != "" {
		pc.ConnConfig.Password = cfg.Password
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pc.ConnConfig.RuntimeParams["application_name"] = "strata"
	q, err := loadQueries()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, interpretError("open database", err)
	}
	return &Store{pool: pool, q: q, partsOK: map[int64]bool{}, gpus: map[string]gpuMeta{}}, nil
}

// redactParseError keeps parse errors from echoing a password-bearing URL.
func redactParseError(err error) string {
	return "invalid database URL (details withheld: it may contain a password): " + fmt.Sprintf("%T", err)
}

// Ping checks that Postgres answers.
func (s *Store) Ping(ctx context.Context) error {
	return interpretError("ping database", s.pool.Ping(ctx))
}

// Close releases all connections.
func (s *Store) Close() { s.pool.Close() }
