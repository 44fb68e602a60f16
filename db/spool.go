package db

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// ErrSpoolFull is returned when appending would make the spool exceed its
// bound, or eat into its reserve, or the file system has no room (ENOSPC);
// the batch is not stored.
var ErrSpoolFull = errors.New("spool full")

// Batch is one unit of ingestion: samples plus the assignment and job
// changes observed with them.
type Batch struct {
	Samples     []dcgm.Sample       `json:"samples,omitempty"`
	Assignments []dcgm.Assignment   `json:"assignments,omitempty"`
	Cluster     string              `json:"cluster,omitempty"`
	Jobs        []planner.Job       `json:"jobs,omitempty"`
	JobEnds     map[int64]time.Time `json:"job_ends,omitempty"`
	// Reduced marks a batch cut down to what per-job energy and GPU-hours
	// need (its assignment and job changes and a few samples) because the
	// whole batch did not fit: it may use the spool's reserve.
	Reduced bool `json:"reduced,omitempty"`
}

// Spool is a bounded, fsynced local store of batches that could not be
// written to Postgres, kept in arrival order (one JSON batch per line). It
// is not safe for concurrent use.
//
// Files, for a spool at P:
//
//   - P, the active segment: Append only ever appends to it (O(batch),
//     fsynced), never rewrites it.
//   - P.00000001, P.00000002, …: sealed segments. The active segment is
//     sealed (renamed: no copy) when it reaches its size bound or when a
//     drain finds nothing else to read. Drain reads sealed segments in
//     order, one batch at a time, and deletes a segment once it has stored
//     every batch in it. A failed drain has read one batch and rewritten
//     nothing.
//   - P.pos, the checkpoint: the sealed segment and byte offset of the
//     first batch not yet stored, replaced (write, fsync, rename) after
//     every stored batch. A crash between storing a batch and recording it
//     replays that one batch; the writes behind Drain are idempotent (sample
//     key (gpu_uuid, ts), upserts), so the database keeps it once. Segment
//     names are never reused while a checkpoint names them.
//   - P.rejected: batches, or the rows of them, that Postgres refuses for
//     good (a constraint or data error), one JSON record per line with the
//     error; kept out of the way so the batches behind them go on
//     (KeepRejected).
//   - P.damaged: bytes that do not decode as a batch (a torn append from a
//     crash, disk damage), and samples no source produces (null, no time,
//     no GPU: dcgm.Sample.Check), moved aside with a log line and counted in
//     Stats; the intact batches and samples around them are drained.
//   - P.lock: the PID of the one process that holds the spool (spool_lock.go).
//
// A spool written by an older strata (P alone, one batch per line) is read
// as an active segment.
type Spool struct {
	path     string
	maxBytes int64
	segMax   int64
	log      zerolog.Logger

	sealed  []segment // oldest first
	nextSeq int
	ckpt    checkpoint // zero seq: none
	damaged SpoolStats // the damage and rejection counters only
	reserve int64      // bytes under maxBytes only reduced batches may use

	lockFile  *os.File   // P.lock, flocked while this process holds the spool
	invalidAt checkpoint // the batch whose invalid samples were last moved aside
}

type segment struct {
	seq  int
	name string
	size int64
}

type checkpoint struct {
	seq int
	off int64
}

// SpoolStats describes a spool, for logs and metrics.
type SpoolStats struct {
	// Bytes is the spool's size on disk (pending batches, plus what has
	// been stored of the segment being drained).
	Bytes int64
	// DamagedRecords and DamagedBytes count what was moved to the
	// .damaged file since the spool was opened (monotonic counters).
	DamagedRecords int64
	DamagedBytes   int64
	// RejectedBatches and RejectedSamples count what was kept in the
	// .rejected file since the spool was opened (monotonic counters).
	RejectedBatches int64
	RejectedSamples int64
}

// SpoolOption configures OpenSpool.
type SpoolOption func(*Spool)

// WithSpoolLogger sets the logger for damage reports (default: none).
func WithSpoolLogger(l zerolog.Logger) SpoolOption {
	return func(s *Spool) { s.log = l }
}

// WithSegmentBytes sets the size at which the active segment is sealed
// (default: a sixteenth of the bound, between 1 MiB and 64 MiB).
func WithSegmentBytes(n int64) SpoolOption {
	return func(s *Spool) {
		if n > 0 {
			s.segMax = n
		}
	}
}

// OpenSpool returns a spool at path holding at most maxBytes (≤ 0: 1 GiB).
// Existing segments are kept: their batches are replayed first. The spool
// is this process's until Close: while another process holds it, OpenSpool
// returns a *SpoolLockedError (ErrSpoolLocked).
func OpenSpool(path string, maxBytes int64, opts ...SpoolOption) (*Spool, error) {
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	s := &Spool{path: path, maxBytes: maxBytes, segMax: min(max(maxBytes/16, 1<<20), 64<<20),
		log: zerolog.Nop(), nextSeq: 1, reserve: defaultReserve(maxBytes)}
	for _, o := range opts {
		o(s)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	if err := s.lock(); err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		s.Close()
		return nil, fmt.Errorf("open spool %s: %w", path, err)
	}
	return s, nil
}

// load finds the sealed segments and the checkpoint, dropping a checkpoint
// that names no existing segment (left by a crash after its segment was
// deleted).
func (s *Spool) load() error {
	matches, err := filepath.Glob(globEscape(s.path) + ".*")
	if err != nil {
		return err
	}
	for _, m := range matches {
		seq, ok := segmentSeq(s.path, m)
		if !ok {
			continue
		}
		st, err := os.Stat(m)
		if err != nil {
			return err
		}
		s.sealed = append(s.sealed, segment{seq: seq, name: m, size: st.Size()})
		s.nextSeq = max(s.nextSeq, seq+1)
	}
	sort.Slice(s.sealed, func(i, j int) bool { return s.sealed[i].seq < s.sealed[j].seq })
	os.Remove(s.ckptPath() + ".tmp")
	ck, err := s.readCheckpoint()
	if err != nil {
		return err
	}
	s.nextSeq = max(s.nextSeq, ck.seq+1)
	if ck.seq != 0 && (len(s.sealed) == 0 || s.sealed[0].seq != ck.seq) {
		if err := s.removeCheckpoint(); err != nil {
			return err
		}
		ck = checkpoint{}
	}
	s.ckpt = ck
	return nil
}

func globEscape(p string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(p)
}

// segmentSeq parses the sequence number of a sealed segment's name.
func segmentSeq(base, name string) (int, bool) {
	suf, ok := strings.CutPrefix(name, base+".")
	if !ok || suf == "" || strings.Trim(suf, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(suf)
	return n, err == nil && n > 0
}

func (s *Spool) segPath(seq int) string { return fmt.Sprintf("%s.%08d", s.path, seq) }
func (s *Spool) ckptPath() string       { return s.path + ".pos" }

// DamagedPath is the file that damaged spool bytes are moved to.
func (s *Spool) DamagedPath() string { return s.path + ".damaged" }

func (s *Spool) activeSize() (int64, error) {
	st, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Size returns the spool's size in bytes (0 when empty).
func (s *Spool) Size() (int64, error) {
	n, err := s.activeSize()
	if err != nil {
		return 0, fmt.Errorf("spool size: %w", err)
	}
	for _, g := range s.sealed {
		n += g.size
	}
	return n, nil
}

// Stats returns the spool's size and damage counters.
func (s *Spool) Stats() SpoolStats {
	st := s.damaged
	st.Bytes, _ = s.Size()
	return st
}

// Append adds a batch at the end and fsyncs it. Its cost does not depend on
// the spool's size.
func (s *Spool) Append(b Batch) error {
	line, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	line = append(line, '\n')
	size, err := s.Size()
	if err != nil {
		return err
	}
	if err := s.room(size, int64(len(line)), b.Reduced); err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	active, err := s.activeSize()
	if err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	if active > 0 && active+int64(len(line)) > s.segMax {
		if err := s.seal(); err != nil {
			return fmt.Errorf("spool append: %w", err)
		}
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("spool append: %w", err)
	}
	start := st.Size()
	if start > 0 {
		// A crash during an earlier append may have left a partial line:
		// end it, so that it stays one damaged line of its own instead of
		// swallowing this batch.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, start-1); err != nil {
			f.Close()
			return fmt.Errorf("spool append: %w", err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		// Take back a partial write; if even that fails, the next append
		// starts on a new line (above).
		f.Truncate(start)
		f.Close()
		return fmt.Errorf("spool append: %w", noSpace(err))
	}
	if err := f.Sync(); err != nil {
		f.Truncate(start)
		f.Close()
		return fmt.Errorf("spool append: fsync: %w", noSpace(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	if start == 0 {
		return syncDir(filepath.Dir(s.path))
	}
	return nil
}

// seal renames the active segment to the next sealed one (an empty or
// missing active segment is left alone).
func (s *Spool) seal() error {
	size, err := s.activeSize()
	if err != nil || size == 0 {
		return err
	}
	seq := s.nextSeq
	name := s.segPath(seq)
	if err := os.Rename(s.path, name); err != nil {
		return fmt.Errorf("seal spool segment: %w", err)
	}
	s.nextSeq++
	s.sealed = append(s.sealed, segment{seq: seq, name: name, size: size})
	return syncDir(filepath.Dir(s.path))
}

// Drain hands every spooled batch, oldest first, to write. Batches written
// successfully are removed; at the first failure the rest is kept as it is
// and the error returned. Bytes that do not decode as a batch are moved to
// DamagedPath (logged, counted in Stats) and the batches after them are
// still drained. It returns the number of batches written.
func (s *Spool) Drain(write func(Batch) error) (int, error) {
	n := 0
	for {
		if len(s.sealed) == 0 {
			if err := s.seal(); err != nil {
				return n, fmt.Errorf("spool drain: %w", err)
			}
			if len(s.sealed) == 0 {
				if s.ckpt.seq == 0 {
					return n, nil
				}
				return n, s.removeCheckpoint()
			}
		}
		seg := s.sealed[0]
		off := int64(0)
		if s.ckpt.seq == seg.seq {
			off = s.ckpt.off
		}
		stored, err := s.drainSegment(seg, off, write)
		n += stored
		if err != nil {
			return n, err
		}
		// Every batch of the segment is stored: the checkpoint names its
		// end, so that a crash before or after the removal replays nothing.
		if s.ckpt != (checkpoint{seg.seq, seg.size}) {
			if err := s.writeCheckpoint(checkpoint{seg.seq, seg.size}); err != nil {
				return n, err
			}
		}
		if err := os.Remove(seg.name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, fmt.Errorf("spool drain: %w", err)
		}
		s.sealed = s.sealed[1:]
	}
}

// drainSegment writes the batches of one sealed segment from off on,
// recording progress after each; it stops at the first write error.
func (s *Spool) drainSegment(seg segment, off int64, write func(Batch) error) (int, error) {
	name := seg.name
	f, err := os.Open(name)
	if err != nil {
		return 0, fmt.Errorf("spool drain: %w", err)
	}
	defer f.Close()
	if off > seg.size {
		s.log.Warn().Str("segment", name).Int64("offset", off).Int64("size", seg.size).
			Msg("spool checkpoint beyond its segment; replaying the segment from its start")
		off = 0
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, fmt.Errorf("spool drain: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for pos := off; ; {
		line, rerr := r.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return n, fmt.Errorf("spool drain: read %s: %w", name, rerr)
		}
		if len(line) == 0 {
			return n, nil
		}
		next := pos + int64(len(line))
		rec := decodeLine(line)
		if rec.damaged > 0 {
			if err := s.quarantine(name, pos, line[:rec.damaged]); err != nil {
				return n, err
			}
			// Record progress past the damage, so that a replay does not
			// quarantine it twice.
			if err := s.writeCheckpoint(checkpoint{seg.seq, pos + int64(rec.damaged)}); err != nil {
				return n, err
			}
		}
		if rec.ok {
			if err := s.dropInvalid(name, checkpoint{seg.seq, pos}, &rec.batch); err != nil {
				return n, err
			}
			if err := write(rec.batch); err != nil {
				return n, err
			}
			n++
			if err := s.writeCheckpoint(checkpoint{seg.seq, next}); err != nil {
				return n, err
			}
		}
		pos = next
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync spool dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync spool dir: %w", err)
	}
	return nil
}
