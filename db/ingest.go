package db

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Ingester writes batches to the store, spooling them locally while
// Postgres is unavailable and replaying the spool, in order, before any new
// batch once it is back. Because every write is idempotent, a batch that was
// committed but not acknowledged is harmless when replayed.
type Ingester struct {
	store *Store
	spool *Spool
	// Timeout bounds one database write (a hung connection is treated as
	// unavailable and the batch spooled); NewIngester sets 30 s.
	Timeout time.Duration
}

// NewIngester returns an ingester over store and spool.
func NewIngester(store *Store, spool *Spool) *Ingester {
	return &Ingester{store: store, spool: spool, Timeout: 30 * time.Second}
}

// write writes one batch with the ingester's timeout; a timeout counts as
// the database being unavailable.
func (in *Ingester) write(ctx context.Context, b Batch) error {
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.Timeout)
		defer cancel()
	}
	err := in.store.WriteBatch(ctx, b)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// WriteResult says what happened to a batch.
type WriteResult struct {
	Spooled  bool // the batch went to the spool (Postgres unavailable)
	Replayed int  // spooled batches written to Postgres before this one
}

// Write stores b, or spools it when Postgres is unavailable. It returns an
// error only when the batch is neither stored nor spooled (spool full or
// failing, or a non-transient database error).
func (in *Ingester) Write(ctx context.Context, b Batch) (WriteResult, error) {
	var res WriteResult
	n, drainErr := in.spool.Drain(func(sb Batch) error { return in.write(ctx, sb) })
	res.Replayed = n
	if drainErr == nil {
		err := in.write(ctx, b)
		if err == nil || !errors.Is(err, ErrUnavailable) {
			return res, err
		}
		drainErr = err
	}
	// Keep order: while anything is spooled, new batches go behind it.
	if serr := in.spool.Append(b); serr != nil {
		return res, fmt.Errorf("ingest: %w; and %w", drainErr, serr)
	}
	res.Spooled = true
	if !errors.Is(drainErr, ErrUnavailable) {
		return res, fmt.Errorf("ingest: replaying spool: %w", drainErr)
	}
	return res, nil
}

// Flush replays the spool; it returns the number of batches written and an
// error wrapping ErrUnavailable if Postgres is still down.
func (in *Ingester) Flush(ctx context.Context) (int, error) {
	return in.spool.Drain(func(sb Batch) error { return in.write(ctx, sb) })
}

// WriteBatch writes one batch: samples, then jobs, then assignments. Every
// step is idempotent.
func (s *Store) WriteBatch(ctx context.Context, b Batch) error {
	if err := s.InsertSamples(ctx, b.Samples); err != nil {
		return err
	}
	if err := s.UpsertJobs(ctx, b.Cluster, b.Jobs, b.JobEnds); err != nil {
		return err
	}
	return s.SaveAssignments(ctx, b.Cluster, b.Assignments)
}
