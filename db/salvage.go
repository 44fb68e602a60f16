package db

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// salvage stores what Postgres accepts of a batch it rejected: each part
// (samples, jobs, assignments) is written whole, and a rejected part is
// halved until the rows it refuses stand alone. It returns those rows and
// the first rejection; an error that a retry may cure stops it (the batch
// is then kept whole: every write is idempotent).
func (in *Ingester) salvage(ctx context.Context, b Batch) (bad Batch, cause error, err error) {
	bad = Batch{Cluster: b.Cluster}
	reject := func(e error) {
		if cause == nil {
			cause = e
		}
	}
	err = bisect(0, len(b.Samples), func(i, j int) error {
		return in.timed(ctx, func(ctx context.Context) error { return in.store.InsertSamples(ctx, b.Samples[i:j]) })
	}, func(i int, e error) { bad.Samples = append(bad.Samples, b.Samples[i]); reject(e) })
	if err != nil {
		return Batch{}, nil, err
	}
	err = bisect(0, len(b.Jobs), func(i, j int) error {
		return in.timed(ctx, func(ctx context.Context) error {
			return in.store.UpsertJobs(ctx, b.Cluster, b.Jobs[i:j], b.JobEnds)
		})
	}, func(i int, e error) {
		j := b.Jobs[i]
		bad.Jobs = append(bad.Jobs, j)
		if end, ok := b.JobEnds[j.ID]; ok {
			if bad.JobEnds == nil {
				bad.JobEnds = map[int64]time.Time{}
			}
			bad.JobEnds[j.ID] = end
		}
		reject(e)
	})
	if err != nil {
		return Batch{}, nil, err
	}
	err = bisect(0, len(b.Assignments), func(i, j int) error {
		return in.timed(ctx, func(ctx context.Context) error {
			return in.store.SaveAssignments(ctx, b.Cluster, b.Assignments[i:j])
		})
	}, func(i int, e error) { bad.Assignments = append(bad.Assignments, b.Assignments[i]); reject(e) })
	if err != nil {
		return Batch{}, nil, err
	}
	if cause == nil { // everything passed this time: the rejection did not come back
		return Batch{}, nil, nil
	}
	return bad, cause, nil
}

// bisect writes items [lo, hi) with put; a range put rejects (ErrRejected)
// is halved until single items are rejected, each handed to reject. Any
// other error stops it and is returned.
func bisect(lo, hi int, put func(lo, hi int) error, reject func(i int, err error)) error {
	if lo >= hi {
		return nil
	}
	err := put(lo, hi)
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrRejected) {
		return err
	}
	if hi-lo == 1 {
		reject(lo, err)
		return nil
	}
	mid := lo + (hi-lo)/2
	if err := bisect(lo, mid, put, reject); err != nil {
		return err
	}
	return bisect(mid, hi, put, reject)
}

// timed runs one database call with the ingester's timeout; a timeout
// counts as the database being unavailable.
func (in *Ingester) timed(ctx context.Context, call func(context.Context) error) error {
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.Timeout)
		defer cancel()
	}
	err := call(ctx)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}
