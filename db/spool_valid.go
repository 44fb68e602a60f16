package db

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/strata-hpc/strata/dcgm"
)

// damagedSamples is the .damaged record of the samples of a spooled batch
// that no source produces (dcgm.Sample.Check: null, no time, no GPU, a
// reading out of range): one JSON object per line, beside the raw bytes
// that did not decode.
type damagedSamples struct {
	Time    time.Time     `json:"time"`
	Segment string        `json:"segment"`
	Offset  int64         `json:"offset"`
	Errors  []string      `json:"errors"`
	Samples []dcgm.Sample `json:"samples"`
}

// dropInvalid takes the invalid samples out of the batch at (seq, off) of
// segment, appends them to DamagedPath (fsynced), logs and counts them: they
// are never stored. A batch whose write fails is read again by the next
// drain: its samples are moved aside once per process (a restart before the
// batch is stored may append them a second time).
func (s *Spool) dropInvalid(segment string, at checkpoint, b *Batch) error {
	off := at.off
	rec := damagedSamples{Segment: segment, Offset: off}
	kept := b.Samples[:0:0]
	for _, smp := range b.Samples {
		if err := smp.Check(); err != nil {
			rec.Errors = append(rec.Errors, err.Error())
			rec.Samples = append(rec.Samples, smp)
			continue
		}
		kept = append(kept, smp)
	}
	if len(rec.Samples) == 0 {
		return nil
	}
	b.Samples = kept
	if s.invalidAt == at {
		return nil // moved aside by an earlier drain of this batch
	}
	rec.Time = time.Now().UTC()
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("spool quarantine: %w", err)
	}
	path := s.DamagedPath()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool quarantine: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("spool quarantine: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("spool quarantine: fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool quarantine: %w", err)
	}
	s.invalidAt = at
	s.damaged.DamagedRecords += int64(len(rec.Samples))
	s.damaged.DamagedBytes += int64(len(line))
	s.log.Error().Str("segment", segment).Int64("offset", off).Int("samples", len(rec.Samples)).
		Str("first_error", rec.Errors[0]).Str("moved_to", path).Int64("damaged_total", s.damaged.DamagedRecords).
		Msg("spool: invalid samples (null, no time, no GPU, out of range) moved aside, not stored; the rest of the batch is kept")
	return nil
}
