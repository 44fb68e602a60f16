package db

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"
)

// Errors are classified by whether a retry can succeed (issue 23.2): a
// server that answers but refuses writes for a while (read-only after a
// failover, disk full, out of memory, too many connections) is unavailable,
// not a reason to drop the batch; only errors about the rows themselves are
// rejections.
func TestErrorClassByRetry(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "m"} }
	type class struct{ Unavailable, Rejected, RetryLater bool }
	tests := []struct {
		name string
		in   error
		want class
	}{
		{"read-only transaction (failover)", pg("25006"), class{true, false, true}},
		{"disk full", pg("53100"), class{true, false, true}},
		{"out of memory", pg("53200"), class{true, false, true}},
		{"too many connections", pg("53300"), class{true, false, true}},
		{"too many connections at connect", fmt.Errorf("failed to connect: %w", pg("53300")), class{true, false, true}},
		{"configuration limit exceeded", pg("53400"), class{true, false, true}},
		{"serialization failure", pg("40001"), class{true, false, true}},
		{"deadlock", pg("40P01"), class{true, false, true}},
		{"statement timeout", pg("57014"), class{true, false, true}},
		{"admin shutdown", pg("57P01"), class{true, false, true}},
		{"cannot connect now (starting up)", pg("57P03"), class{true, false, true}},
		{"lock not available", pg("55P03"), class{true, false, true}},
		{"i/o error", pg("58030"), class{true, false, true}},
		{"connection failure", pg("08006"), class{true, false, true}},
		{"check violation", pg("23514"), class{false, true, false}},
		{"not-null violation", pg("23502"), class{false, true, false}},
		{"unique violation", pg("23505"), class{false, true, false}},
		{"numeric out of range", pg("22003"), class{false, true, false}},
		{"row touched twice by one statement", pg("21000"), class{false, true, false}},
		{"statement too large", pg("54000"), class{false, true, false}},
		// about the statement or the schema, not the rows: kept and
		// retried (an operator can migrate or grant), never quarantined
		{"undefined table", pg("42P01"), class{false, false, true}},
		{"insufficient privilege", pg("42501"), class{false, false, true}},
		{"context canceled", context.Canceled, class{false, false, true}},
		{"unknown error", errors.New("boom"), class{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := interpretError("write", tt.in)
			got := class{errors.Is(err, ErrUnavailable), errors.Is(err, ErrRejected), retryLater(err)}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%v (-want +got):\n%s", err, d)
			}
		})
	}
}

func TestSQLState(t *testing.T) {
	err := interpretError("save assignments", &pgconn.PgError{Code: "23514", ConstraintName: "gpu_assignment_check"})
	if got := SQLState(err); got != "23514" {
		t.Errorf("SQLState = %q, want 23514", got)
	}
	if got := SQLState(errors.New("x")); got != "" {
		t.Errorf("SQLState of a non-Postgres error = %q, want empty", got)
	}
}
