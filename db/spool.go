package db

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// ErrSpoolFull is returned when appending would make the spool exceed its
// bound; the batch is not stored.
var ErrSpoolFull = errors.New("spool full")

// Batch is one unit of ingestion: samples plus the assignment and job
// changes observed with them.
type Batch struct {
	Samples     []dcgm.Sample       `json:"samples,omitempty"`
	Assignments []dcgm.Assignment   `json:"assignments,omitempty"`
	Cluster     string              `json:"cluster,omitempty"`
	Jobs        []planner.Job       `json:"jobs,omitempty"`
	JobEnds     map[int64]time.Time `json:"job_ends,omitempty"`
}

// Spool is a bounded, fsynced local file of batches that could not be
// written to Postgres, kept in arrival order (one JSON batch per line).
// It is not safe for concurrent use.
type Spool struct {
	path     string
	maxBytes int64
}

// OpenSpool returns a spool at path holding at most maxBytes (≤ 0: 1 GiB).
// An existing file is kept: its batches are replayed first.
func OpenSpool(path string, maxBytes int64) (*Spool, error) {
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	return &Spool{path: path, maxBytes: maxBytes}, nil
}

// Size returns the spool's size in bytes (0 when empty).
func (s *Spool) Size() (int64, error) {
	st, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("spool size: %w", err)
	}
	return st.Size(), nil
}

// Append adds a batch at the end and fsyncs it.
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
	if size+int64(len(line)) > s.maxBytes {
		return fmt.Errorf("spool append: %d + %d bytes > %d: %w", size, len(line), s.maxBytes, ErrSpoolFull)
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("spool append: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("spool append: fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool append: %w", err)
	}
	return syncDir(filepath.Dir(s.path))
}

// Drain hands every spooled batch, oldest first, to write. Batches written
// successfully are removed; at the first failure the rest is kept (rewritten
// atomically) and the error returned. It returns the number drained.
func (s *Spool) Drain(write func(Batch) error) (int, error) {
	batches, err := s.read()
	if err != nil || len(batches) == 0 {
		return 0, err
	}
	for i, b := range batches {
		if err := write(b); err != nil {
			if rerr := s.rewrite(batches[i:]); rerr != nil {
				return i, errors.Join(err, rerr)
			}
			return i, err
		}
	}
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return len(batches), fmt.Errorf("spool drain: %w", err)
	}
	return len(batches), syncDir(filepath.Dir(s.path))
}

func (s *Spool) read() ([]Batch, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool read: %w", err)
	}
	defer f.Close()
	var out []Batch
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var b Batch
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			// A torn last line (crash during append) is dropped; it was
			// never acknowledged as spooled.
			break
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("spool read: %w", err)
	}
	return out, nil
}

// rewrite replaces the spool with batches via a fsynced temporary file.
func (s *Spool) rewrite(batches []Batch) error {
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("spool rewrite: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, b := range batches {
		if err := enc.Encode(b); err != nil {
			f.Close()
			return fmt.Errorf("spool rewrite: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("spool rewrite: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("spool rewrite: fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool rewrite: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("spool rewrite: %w", err)
	}
	return syncDir(filepath.Dir(s.path))
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
