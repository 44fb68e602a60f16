package db

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Ingester writes batches to the store, spooling them locally while
// Postgres cannot take them and replaying the spool, in order, before any
// new batch once it can. Because every write is idempotent, a batch that was
// committed but not acknowledged is harmless when replayed.
//
// What becomes of a batch depends on whether a retry can store it (see
// errors.go): a batch Postgres cannot take now (unreachable, read-only,
// disk full, too many connections, any error not about the rows) is
// spooled; rows Postgres refuses for good (ErrRejected: a constraint or
// data error) are kept in the spool's .rejected file, and the rest of the
// batch, and every batch behind it, is stored.
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

// WriteResult says what happened to a batch.
type WriteResult struct {
	Spooled bool // the batch went to the spool (Postgres cannot take it now)
	// Reduced: the spool had no room for the whole batch; its reduced form
	// (the reduce function's) was spooled instead, or, when that was
	// empty, nothing. Spooled is false then.
	Reduced bool
	// ReducedSamples is how many samples the reduced form kept.
	ReducedSamples int
	Replayed       int // spooled batches written to Postgres before this one
	// Quarantined counts the batches (spooled ones, this one) some rows of
	// which Postgres refused for good: those rows went to the .rejected
	// file, the rest was stored. QuarantinedSamples counts their samples.
	Quarantined        int
	QuarantinedSamples int
	// Cause is why the batch was spooled (whole or reduced): the error of
	// the write, or of the spooled batch before it, that a retry may cure.
	Cause error
}

// Write stores b, or spools it when Postgres cannot take it now. It returns
// an error only when the batch is neither stored nor spooled (spool full or
// failing).
func (in *Ingester) Write(ctx context.Context, b Batch) (WriteResult, error) {
	return in.WriteOrReduce(ctx, b, nil)
}

// WriteOrReduce is Write, but when the spool has no room for b it spools
// reduce(b) instead, marked Reduced, which may use the spool's reserve: a
// batch cut down to what must never be lost. An empty reduced batch is not
// spooled.
func (in *Ingester) WriteOrReduce(ctx context.Context, b Batch, reduce func(Batch) Batch) (WriteResult, error) {
	var res WriteResult
	n, cause := in.spool.Drain(func(sb Batch) error { return in.store1(ctx, sb, &res) })
	res.Replayed = n
	if cause == nil {
		cause = in.store1(ctx, b, &res)
		if cause == nil {
			return res, nil
		}
	}
	// Keep order: while anything is spooled, new batches go behind it.
	res.Cause = cause
	serr := in.spool.Append(b)
	if serr == nil {
		res.Spooled = true
		return res, nil
	}
	if errors.Is(serr, ErrSpoolFull) && reduce != nil {
		r := reduce(b)
		r.Reduced = true
		if r.empty() {
			res.Reduced = true
			return res, nil
		}
		rerr := in.spool.Append(r)
		if rerr == nil {
			res.Reduced, res.ReducedSamples = true, len(r.Samples)
			return res, nil
		}
		serr = fmt.Errorf("%w; reduced batch: %w", serr, rerr)
	}
	return res, fmt.Errorf("ingest: %w; and %w", cause, serr)
}

// empty reports whether b carries nothing to store.
func (b Batch) empty() bool {
	return len(b.Samples) == 0 && len(b.Assignments) == 0 && len(b.Jobs) == 0 && len(b.JobEnds) == 0
}

// store1 writes one batch; rows Postgres refuses for good are kept aside
// (counted in res) and the rest stored. It returns an error only when the
// batch should be kept and retried.
func (in *Ingester) store1(ctx context.Context, b Batch, res *WriteResult) error {
	err := in.timed(ctx, func(ctx context.Context) error { return in.store.WriteBatch(ctx, b) })
	if err == nil || retryLater(err) {
		return err
	}
	bad, cause, err := in.salvage(ctx, b)
	if err != nil || cause == nil {
		return err
	}
	if err := in.spool.KeepRejected(bad, cause); err != nil {
		return err
	}
	res.Quarantined++
	res.QuarantinedSamples += len(bad.Samples)
	return nil
}

// Flush replays the spool; it returns the number of batches written and an
// error if Postgres still cannot take them.
func (in *Ingester) Flush(ctx context.Context) (int, error) {
	var res WriteResult
	return in.FlushResult(ctx, &res)
}

// FlushResult is Flush, adding what it quarantined to res.
func (in *Ingester) FlushResult(ctx context.Context, res *WriteResult) (int, error) {
	n, err := in.spool.Drain(func(sb Batch) error { return in.store1(ctx, sb, res) })
	res.Replayed += n
	return n, err
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
