package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Errors returned by Store methods (test with errors.Is).
var (
	// ErrNotFound: the requested row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: Postgres could not be reached or dropped the
	// connection; the operation may be retried later.
	ErrUnavailable = errors.New("database unavailable")
	// ErrConflict: a unique key was violated.
	ErrConflict = errors.New("conflict")
	// ErrSchemaBehind: the database schema is older than this binary; run
	// `strata db migrate`.
	ErrSchemaBehind = errors.New("database schema is behind; run `strata db migrate`")
	// ErrSchemaAhead: the database was migrated by a newer strata.
	ErrSchemaAhead = errors.New("database schema is newer than this strata")
)

// interpretError maps driver errors to the package's sentinels, keeping the
// original error in the chain. op names the operation for the message.
func interpretError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505":
			return fmt.Errorf("%s: %w: %w", op, ErrConflict, err)
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57P"):
			return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	if isTransport(err) {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// isTransport reports whether err means the server could not be reached or
// the connection broke (as opposed to the server rejecting a statement).
func isTransport(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.Timeout(err),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "closed pool", "connection reset", "broken pipe", "unexpected EOF", "failed to connect"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
