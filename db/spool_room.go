package db

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
)

// Room in the spool for reduced batches. A batch of samples may fill the
// spool up to its bound less a reserve, and the file system up to a free
// margin; a reduced batch (assignment and job changes with the few samples
// that per-job energy needs: Batch.Reduced) may use the reserve and the
// margin. So when the disk or the bound is full, what a report of a job's
// GPU-hours and energy needs is still kept.

// fsMargin is the most free file-system space kept for reduced batches.
const fsMargin = 16 << 10

// defaultReserve is a sixteenth of the bound, at most 16 MiB, but at least
// 64 KiB or half of a smaller bound.
func defaultReserve(maxBytes int64) int64 {
	return max(min(maxBytes/16, 16<<20), min(64<<10, maxBytes/2))
}

// WithReserve sets the bytes under the bound that only reduced batches may
// use (default: a sixteenth of the bound, at most 16 MiB, at least 64 KiB
// or half of a smaller bound).
func WithReserve(n int64) SpoolOption {
	return func(s *Spool) {
		if n >= 0 {
			s.reserve = min(n, s.maxBytes)
		}
	}
}

// room returns nil when n more bytes fit a spool of size bytes: under the
// bound less the reserve, and leaving the free margin on the file system,
// unless the batch is reduced.
func (s *Spool) room(size, n int64, reduced bool) error {
	limit := s.maxBytes
	if !reduced {
		limit -= s.reserve
	}
	if size+n > limit {
		return fmt.Errorf("%d + %d bytes > %d: %w", size, n, limit, ErrSpoolFull)
	}
	free, ok := freeBytes(filepath.Dir(s.path))
	margin := int64(0)
	if !reduced {
		margin = min(s.reserve, fsMargin)
	}
	if ok && free-n < margin {
		return fmt.Errorf("%d bytes free on the file system, %d needed and %d kept for reduced batches: %w",
			free, n, margin, ErrSpoolFull)
	}
	return nil
}

// noSpace marks a write that failed for lack of space (ENOSPC, EDQUOT) as
// ErrSpoolFull.
func noSpace(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ErrSpoolFull, err)
	}
	return err
}
