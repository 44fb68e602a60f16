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
	"slices"
	"strings"
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

// secretParams are the connection parameters that carry secrets, in a
// URL's query or a key=value DSN.
var secretParams = []string{"password", "sslpassword"}

// Redacted returns URL (a postgres:// URL or a key=value DSN) with every
// password replaced by "xxxxx": the user-info password, and password= or
// sslpassword= parameters. Use it wherever the URL may be shown.
func (c Config) Redacted() string {
	if !isURL(c.URL) {
		return redactDSN(c.URL)
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return "(unparsable database URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if slices.Contains(secretParams, strings.ToLower(k)) {
				parts[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// HasPassword reports whether the URL or DSN itself carries a password
// (which must then not travel in argv or a configuration file).
func (c Config) HasPassword() bool {
	if !isURL(c.URL) {
		return redactDSN(c.URL) != c.URL
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return true // cannot tell: treat as secret
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			return true
		}
	}
	for k := range u.Query() {
		if slices.Contains(secretParams, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// redactDSN masks the secret values of a key=value DSN, keeping the rest:
// keys and values may be separated by spaces around "=", values may be
// single-quoted with backslash escapes (libpq's rules).
func redactDSN(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		if s[i] == ' ' || s[i] == '\t' {
			b.WriteByte(s[i])
			i++
			continue
		}
		k := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[k:i]
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			b.WriteString(key)
			continue
		}
		i++ // '='
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		v := i
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i+1, len(s))
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				i++
			}
		}
		b.WriteString(key)
		b.WriteByte('=')
		if slices.Contains(secretParams, strings.ToLower(key)) {
			b.WriteString("xxxxx")
		} else {
			b.WriteString(s[v:i])
		}
	}
	return b.String()
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
	// Plan every execution for its parameters: pgx prepares the queries,
	// and after five runs Postgres may switch a statement to a generic plan.
	// For the report queries that plan assumed a one-row window and redid
	// the job lookup per rollup row: a 0.2 s report took minutes on its
	// sixth run on the same connection (measured by make bench-store).
	pc.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	setLiveness(pc)
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
