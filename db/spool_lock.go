package db

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A spool belongs to one process. Two collectors appending to, sealing and
// draining one spool lose batches (their segment numbers and checkpoints
// collide), so OpenSpool takes an exclusive lock on P.lock beside the spool
// and writes its PID there; the kernel releases the lock when the process
// ends, however it ends, so the lock of a dead collector is taken over by
// the next one (its file, with the dead PID, is reused); Close removes it.

// ErrSpoolLocked is wrapped by the error of OpenSpool when another process
// holds the spool (SpoolLockedError says which).
var ErrSpoolLocked = errors.New("spool in use by another process")

// SpoolLockedError is OpenSpool's error when another process holds the
// spool's lock: a second collector on the same --spool-file.
type SpoolLockedError struct {
	Path string // the spool
	PID  int    // the holder's, as it wrote it (0: unknown)
}

func (e *SpoolLockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("spool %s is held by %s (lock %s): %v; give each collector its own --spool-file",
		e.Path, holder, e.Path+".lock", ErrSpoolLocked)
}

// Unwrap makes errors.Is(err, ErrSpoolLocked) true.
func (e *SpoolLockedError) Unwrap() error { return ErrSpoolLocked }

// LockPath is the lock file that makes the spool one process's.
func (s *Spool) LockPath() string { return s.path + ".lock" }

// lock takes the spool's lock, or returns a *SpoolLockedError naming the
// holder.
func (s *Spool) lock() error {
	for range 10 {
		f, err := os.OpenFile(s.LockPath(), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return fmt.Errorf("lock spool: %w", err)
		}
		held, err := tryFlock(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("lock spool %s: %w", s.LockPath(), err)
		}
		if !held {
			b, _ := os.ReadFile(s.LockPath())
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			f.Close()
			return &SpoolLockedError{Path: s.path, PID: pid}
		}
		// A holder that closed the spool removed the file after we opened
		// it: our lock is on a file no one else will open; take the new one.
		if !sameFile(f, s.LockPath()) {
			f.Close()
			continue
		}
		// The lock is ours (a dead holder's PID, if any, is overwritten).
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("lock spool %s: %w", s.LockPath(), err)
		}
		s.lockFile = f
		return nil
	}
	return fmt.Errorf("lock spool %s: replaced ten times while locking it", s.LockPath())
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Close releases the spool's lock (and removes its file); the spool must
// not be used after it. It is safe to call twice. What is spooled stays for
// the next OpenSpool.
func (s *Spool) Close() error {
	if s.lockFile == nil {
		return nil
	}
	// Removed while still locked: a process that opened the file before
	// the removal finds it replaced (lock) and opens the path again.
	rmErr := os.Remove(s.LockPath())
	if errors.Is(rmErr, os.ErrNotExist) {
		rmErr = nil
	}
	err := errors.Join(rmErr, s.lockFile.Close())
	s.lockFile = nil
	if err != nil {
		return fmt.Errorf("close spool: %w", err)
	}
	return nil
}
