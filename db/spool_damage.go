package db

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// record is one decoded spool line: a batch (ok), after damaged leading
// bytes when damaged > 0.
type record struct {
	batch   Batch
	ok      bool
	damaged int
}

// batchStarts are how a marshalled Batch can begin (its first non-empty
// field); no nested object begins so.
var batchStarts = [][]byte{[]byte(`{"samples":`), []byte(`{"assignments":`), []byte(`{"cluster":`),
	[]byte(`{"jobs":`), []byte(`{"job_ends":`), []byte(`{"reduced":`), []byte(`{}`)}

// decodeLine decodes one line. A line that does not decode is damaged, up
// to the last batch start from which the rest decodes: a partial batch
// (torn by a crash) followed on the same line by an intact one, as strata
// before the segmented spool wrote after a crash, keeps the intact one.
func decodeLine(line []byte) record {
	body := bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return record{}
	}
	var rec record
	if body[0] == '{' && json.Unmarshal(body, &rec.batch) == nil {
		rec.ok = true
		return rec
	}
	for i := 1; i < len(body); i++ {
		if body[i] != '{' || !startsBatch(body[i:]) {
			continue
		}
		var b Batch
		if json.Unmarshal(body[i:], &b) == nil {
			return record{batch: b, ok: true, damaged: i}
		}
	}
	return record{damaged: len(line)}
}

func startsBatch(b []byte) bool {
	for _, p := range batchStarts {
		if bytes.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// quarantine appends damaged bytes (as one line) to DamagedPath, fsynced,
// logs and counts them (a line end is not counted).
func (s *Spool) quarantine(segment string, off int64, raw []byte) error {
	path := s.DamagedPath()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool quarantine: %w", err)
	}
	raw = bytes.TrimSuffix(raw, []byte{'\n'}) // the line's end is not damage
	if _, err := f.Write(append(raw[:len(raw):len(raw)], '\n')); err != nil {
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
	s.damaged.DamagedRecords++
	s.damaged.DamagedBytes += int64(len(raw))
	s.log.Error().Str("segment", segment).Int64("offset", off).Int("bytes", len(raw)).Str("moved_to", path).
		Int64("damaged_total", s.damaged.DamagedRecords).
		Msg("spool: bytes that are not a batch (torn append or disk damage) moved aside; the batches around them are kept")
	return nil
}
