package db

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// readCheckpoint reads the checkpoint (zero when there is none). An
// unreadable one is removed: replaying its segment from the start loses
// nothing.
func (s *Spool) readCheckpoint() (checkpoint, error) {
	b, err := os.ReadFile(s.ckptPath())
	if errors.Is(err, os.ErrNotExist) {
		return checkpoint{}, nil
	}
	if err != nil {
		return checkpoint{}, fmt.Errorf("read spool checkpoint: %w", err)
	}
	var ck checkpoint
	if _, err := fmt.Sscanf(string(b), "%d %d", &ck.seq, &ck.off); err != nil || ck.seq <= 0 || ck.off < 0 {
		s.log.Warn().Str("file", s.ckptPath()).Msg("unreadable spool checkpoint removed; its segment is replayed from the start")
		return checkpoint{}, s.removeCheckpoint()
	}
	return ck, nil
}

// writeCheckpoint replaces the checkpoint atomically (temporary file,
// fsync, rename, directory fsync).
func (s *Spool) writeCheckpoint(ck checkpoint) error {
	tmp := s.ckptPath() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("spool checkpoint: %w", err)
	}
	if _, err := fmt.Fprintf(f, "%d %d\n", ck.seq, ck.off); err != nil {
		f.Close()
		return fmt.Errorf("spool checkpoint: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("spool checkpoint: fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool checkpoint: %w", err)
	}
	if err := os.Rename(tmp, s.ckptPath()); err != nil {
		return fmt.Errorf("spool checkpoint: %w", err)
	}
	s.ckpt = ck
	return syncDir(filepath.Dir(s.path))
}

func (s *Spool) removeCheckpoint() error {
	if err := os.Remove(s.ckptPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("spool checkpoint: %w", err)
	}
	s.ckpt = checkpoint{}
	return nil
}
