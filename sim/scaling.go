package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Scaling holds measured isolated run times by (model, batch size, GPUs),
// e.g. pollux_scaling.csv. It is read-only after ReadScaling.
type Scaling struct {
	curves map[curveKey][]curvePoint // sorted by GPUs
}

type curveKey struct {
	model string
	batch int
}

type curvePoint struct {
	gpus     int
	duration float64
}

// ReadScaling parses a scaling CSV with columns model, batch_size, gpus and
// duration_s (others ignored). Every malformed row is an error with its
// line number: the curves are small, hand-checked inputs.
func ReadScaling(r io.Reader) (*Scaling, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read scaling header: %w", err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, c := range []string{"model", "batch_size", "gpus", "duration_s"} {
		if _, ok := cols[c]; !ok {
			return nil, fmt.Errorf("read scaling header: missing column %q", c)
		}
	}
	s := &Scaling{curves: map[curveKey][]curvePoint{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read scaling: %w", err)
		}
		line, _ := cr.FieldPos(0)
		k, p, err := parseCurveRow(rec, cols)
		if err != nil {
			return nil, fmt.Errorf("read scaling: line %d: %w", line, err)
		}
		s.curves[k] = append(s.curves[k], p)
	}
	for k, ps := range s.curves {
		sort.Slice(ps, func(a, b int) bool { return ps[a].gpus < ps[b].gpus })
		for i := 1; i < len(ps); i++ {
			if ps[i].gpus == ps[i-1].gpus {
				return nil, fmt.Errorf("read scaling: %s batch %d: duplicate row for %d GPUs", k.model, k.batch, ps[i].gpus)
			}
		}
	}
	return s, nil
}

func parseCurveRow(rec []string, cols map[string]int) (curveKey, curvePoint, error) {
	model := strings.ToLower(strings.TrimSpace(rec[cols["model"]]))
	batch, err := strconv.Atoi(strings.TrimSpace(rec[cols["batch_size"]]))
	if err != nil || batch <= 0 {
		return curveKey{}, curvePoint{}, fmt.Errorf("column batch_size: want a positive integer, got %q", rec[cols["batch_size"]])
	}
	gpus, err := strconv.Atoi(strings.TrimSpace(rec[cols["gpus"]]))
	if err != nil || gpus <= 0 {
		return curveKey{}, curvePoint{}, fmt.Errorf("column gpus: want a positive integer, got %q", rec[cols["gpus"]])
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(rec[cols["duration_s"]]), 64)
	if err != nil || d <= 0 {
		return curveKey{}, curvePoint{}, fmt.Errorf("column duration_s: want a positive number, got %q", rec[cols["duration_s"]])
	}
	if model == "" {
		return curveKey{}, curvePoint{}, errors.New("column model: empty value")
	}
	return curveKey{model, batch}, curvePoint{gpus, d}, nil
}

// Has reports whether a curve exists for (model, batch).
func (s *Scaling) Has(model string, batch int) bool {
	if s == nil {
		return false
	}
	_, ok := s.curves[curveKey{model, batch}]
	return ok
}

// MaxGPUs is the largest measured GPU count of the (model, batch) curve
// (0 when there is no curve).
func (s *Scaling) MaxGPUs(model string, batch int) int {
	if s == nil {
		return 0
	}
	ps := s.curves[curveKey{model, batch}]
	if len(ps) == 0 {
		return 0
	}
	return ps[len(ps)-1].gpus
}

// Duration returns the isolated run time of (model, batch) on gpus GPUs:
// the measured value, linear interpolation between the neighbouring
// measured counts, or the value at the largest measured count beyond it
// (more GPUs than measured never make a job faster). Below the smallest
// measured count it returns false.
func (s *Scaling) Duration(model string, batch, gpus int) (float64, bool) {
	if s == nil {
		return 0, false
	}
	ps := s.curves[curveKey{model, batch}]
	i := sort.Search(len(ps), func(i int) bool { return ps[i].gpus >= gpus })
	switch {
	case len(ps) == 0 || gpus < 1:
		return 0, false
	case i == len(ps):
		return ps[len(ps)-1].duration, true
	case ps[i].gpus == gpus:
		return ps[i].duration, true
	case i == 0:
		return 0, false
	}
	lo, hi := ps[i-1], ps[i]
	f := float64(gpus-lo.gpus) / float64(hi.gpus-lo.gpus)
	return lo.duration + f*(hi.duration-lo.duration), true
}
