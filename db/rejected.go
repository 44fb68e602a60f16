package db

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// RejectedRecord is one line of the spool's .rejected file: rows Postgres
// refused for good, with why.
type RejectedRecord struct {
	At         time.Time `json:"at"`
	SQLState   string    `json:"sqlstate,omitempty"`
	Constraint string    `json:"constraint,omitempty"`
	Error      string    `json:"error"`
	Batch      Batch     `json:"batch"`
}

// RejectedPath is the file that batches Postgres refuses for good are kept in.
func (s *Spool) RejectedPath() string { return s.path + ".rejected" }

// KeepRejected appends b (the rows of a batch that Postgres refused, cause
// being why) to RejectedPath, fsynced, and logs and counts it. An operator
// can read the file, fix the cause, and store the batches again (each
// record's batch is a spool batch: a line of a spool segment).
func (s *Spool) KeepRejected(b Batch, cause error) error {
	rec := RejectedRecord{At: time.Now().UTC(), SQLState: SQLState(cause), Batch: b}
	if cause != nil {
		rec.Error = cause.Error()
	}
	var pgErr *pgconn.PgError
	if errors.As(cause, &pgErr) {
		rec.Constraint = pgErr.ConstraintName
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("keep rejected batch: %w", err)
	}
	f, err := os.OpenFile(s.RejectedPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("keep rejected batch: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("keep rejected batch: %w", noSpace(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("keep rejected batch: fsync: %w", noSpace(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keep rejected batch: %w", err)
	}
	s.damaged.RejectedBatches++
	s.damaged.RejectedSamples += int64(len(b.Samples))
	s.log.Error().Err(cause).Str("sqlstate", rec.SQLState).Str("constraint", rec.Constraint).
		Int("samples", len(b.Samples)).Int("jobs", len(b.Jobs)).Int("assignments", len(b.Assignments)).
		Str("moved_to", s.RejectedPath()).Int64("quarantined_total", s.damaged.RejectedBatches).
		Msg("batch quarantined: Postgres refuses these rows for good; the rest of the batch and the batches behind it go on")
	return nil
}
