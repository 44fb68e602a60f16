package dcgm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// ReplayConfig controls how a recording is served.
type ReplayConfig struct {
	// Speed scales recorded time: 1 replays in real time, 60 a minute per
	// second; 0 (the default) serves sweeps as fast as they are asked for.
	Speed float64
	// Shift is added to every recorded time (e.g. to move a recording to today).
	Shift time.Duration
}

// ReplaySource serves a recording sweep by sweep: each Snapshot returns all
// samples that share the next recorded timestamp, then io.EOF after the last.
type ReplaySource struct {
	sweeps [][]Sample
	next   int
	cfg    ReplayConfig
	start  time.Time // wall time of the first Snapshot when Speed > 0
}

// NewReplaySource returns a source over samples (any order).
func NewReplaySource(samples []Sample, cfg ReplayConfig) *ReplaySource {
	s := append([]Sample(nil), samples...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Time.Before(s[j].Time) })
	var sweeps [][]Sample
	for i := 0; i < len(s); {
		j, t := i, s[i].Time // compare with the recorded time, not the shifted one
		for j < len(s) && s[j].Time.Equal(t) {
			s[j].Time = s[j].Time.Add(cfg.Shift)
			s[j].Source = "replay"
			j++
		}
		sweep := s[i:j:j]
		sortSamples(sweep)
		sweeps = append(sweeps, sweep)
		i = j
	}
	return &ReplaySource{sweeps: sweeps, cfg: cfg}
}

// OpenReplay reads a recording file (JSON lines, or CSV when the name ends
// in .csv) and returns a source over it.
func OpenReplay(path string, cfg ReplayConfig) (*ReplaySource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open replay: %w", err)
	}
	defer f.Close()
	var samples []Sample
	if strings.HasSuffix(strings.ToLower(path), ".csv") {
		samples, err = ReadCSV(f)
	} else {
		samples, err = ReadJSONL(f)
	}
	if err != nil {
		return nil, fmt.Errorf("open replay %s: %w", path, err)
	}
	return NewReplaySource(samples, cfg), nil
}

// Snapshot returns the next sweep, waiting for its scaled time when Speed > 0.
func (r *ReplaySource) Snapshot(ctx context.Context) ([]Sample, error) {
	if r.next >= len(r.sweeps) {
		return nil, io.EOF
	}
	sweep := r.sweeps[r.next]
	if r.cfg.Speed > 0 {
		if r.start.IsZero() {
			r.start = time.Now()
		}
		offset := sweep[0].Time.Sub(r.sweeps[0][0].Time)
		due := r.start.Add(time.Duration(float64(offset) / r.cfg.Speed))
		if err := sleepUntil(ctx, due); err != nil {
			return nil, err
		}
	}
	r.next++
	return append([]Sample(nil), sweep...), nil
}

// LastTime is the (shifted) time of the last sweep; zero for an empty
// recording.
func (r *ReplaySource) LastTime() time.Time {
	if len(r.sweeps) == 0 {
		return time.Time{}
	}
	return r.sweeps[len(r.sweeps)-1][0].Time
}

func sleepUntil(ctx context.Context, due time.Time) error {
	d := time.Until(due)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ReadJSONL reads one JSON-encoded Sample per line; blank lines are skipped.
func ReadJSONL(r io.Reader) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s Sample
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return nil, fmt.Errorf("read samples: line %d: %w", n, err)
		}
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("read samples: line %d: %w", n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return out, nil
}

// WriteJSONL writes one JSON-encoded Sample per line.
func WriteJSONL(w io.Writer, samples []Sample) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, s := range samples {
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("write samples: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write samples: %w", err)
	}
	return nil
}
