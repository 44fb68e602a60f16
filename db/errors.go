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
	// ErrUnavailable: Postgres could not be reached, dropped the
	// connection, or answered with an error that a later retry of the same
	// statement can get past (read-only after a failover, disk full, out of
	// memory, too many connections, a serialization failure, a shutdown);
	// the operation may be retried later.
	ErrUnavailable = errors.New("database unavailable")
	// ErrRejected: Postgres refused the statement for the rows it carries
	// (a constraint or data error, a statement too large): retrying the same
	// rows fails again, although a part of them may be stored.
	ErrRejected = errors.New("rejected by the database")
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
			return fmt.Errorf("%s: %w: %w: %w", op, ErrConflict, ErrRejected, err)
		case retryable(pgErr.Code):
			return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
		case rejected(pgErr.Code):
			return fmt.Errorf("%s: %w: %w", op, ErrRejected, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	if isTransport(err) {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// retryable reports whether a statement that failed with SQLSTATE code can
// succeed when retried unchanged later: the server, not the statement, was
// the problem. By class (PostgreSQL's errcodes appendix):
//
//	08     connection exception
//	25006  read-only transaction (a standby, or a primary after a failover,
//	       or default_transaction_read_only); 25P03/25P04 session and
//	       transaction timeouts
//	40     transaction rollback (serialization failure, deadlock)
//	53     insufficient resources: disk full (53100), out of memory (53200),
//	       too many connections (53300), configuration limit (53400)
//	55006  object in use, 55P03 lock not available
//	57     operator intervention: query canceled, admin or crash shutdown,
//	       cannot connect now, idle session timeout
//	58     system error (I/O error)
//	72     snapshot too old
//	F0     configuration file error
func retryable(code string) bool {
	switch code {
	case "25006", "25P03", "25P04", "55006", "55P03":
		return true
	}
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "08", "40", "53", "57", "58", "72", "F0":
		return true
	}
	return false
}

// rejected reports whether SQLSTATE code blames the rows of the statement:
// retrying them fails again. 21 cardinality violation (one row twice in one
// statement), 22 data exception, 23 integrity constraint violation, 54
// program limit exceeded (a statement too large: a smaller part may pass).
// Errors of neither kind (42 syntax or access rule, 0A feature not
// supported, …) are about the statement or the schema, not the rows.
func rejected(code string) bool {
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "21", "22", "23", "54":
		return true
	}
	return false
}

// retryLater reports whether a write that failed with err should be kept
// and retried unchanged: anything but a rejection of the rows themselves
// (ErrRejected) or a missing row (ErrNotFound). An error of unknown kind is
// retried: keeping the data costs spool space, dropping it costs the data.
func retryLater(err error) bool {
	switch {
	case err == nil, errors.Is(err, ErrRejected), errors.Is(err, ErrNotFound):
		return false
	}
	return true
}

// SQLState returns the SQLSTATE code of the Postgres error in err's chain
// ("" when there is none), for logs.
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
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
