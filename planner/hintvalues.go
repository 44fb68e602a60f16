package planner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/burstbuffer"
)

func positiveSetter(set func(*Hints, int), limit int, fix string) func(*Hints, string) string {
	return func(h *Hints, v string) string {
		n, err := parsePositive(v, limit)
		if err != nil {
			return fix
		}
		set(h, n)
		return ""
	}
}

func wholeSetter(set func(*Hints, int64)) func(*Hints, string) string {
	return func(h *Hints, v string) string {
		f, err := parseCount(v)
		if err != nil || f < 1 || f != float64(int64(f)) {
			return "want a whole number ≥ 1 (K/M/G suffixes allowed, e.g. 1.2M)"
		}
		set(h, int64(f))
		return ""
	}
}

// memSetter reads mem= in Slurm's units, as --mem does: a bare number is
// MB (MiB), K/M/G/T are binary; "GB"-style suffixes are refused rather
// than silently read as binary.
func memSetter(set func(*Hints, int64)) func(*Hints, string) string {
	return func(h *Hints, v string) string {
		const fix = "want memory per worker in Slurm's units: a number of MB (mem=64000, as --mem) or K/M/G/T, binary as for bb= (mem=64G = mem=64GB = 64 GiB)"
		s := v
		if n := len(s); n > 0 && s[n-1] >= '0' && s[n-1] <= '9' {
			s += "M"
		}
		b, err := burstbuffer.ParseSize(s)
		if err != nil || b <= 0 {
			return fix
		}
		set(h, b)
		return ""
	}
}

func sizeSetter(set func(*Hints, int64)) func(*Hints, string) string {
	return func(h *Hints, v string) string {
		n, err := burstbuffer.ParseSize(v)
		if err != nil || n <= 0 {
			return "want a size such as 500G or 1.5T (K/M/G/T = 2^10..2^40 bytes, as in Slurm's #BB capacity=)"
		}
		set(h, n)
		return ""
	}
}

func parsePositive(s string, limit int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > limit {
		return 0, fmt.Errorf("parse %q: out of range", s)
	}
	return n, nil
}

// parseRange parses "N" or "MIN-MAX".
func parseRange(s string, limit int) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if lo, err = parsePositive(a, limit); err != nil {
		return 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = parsePositive(b, limit); err != nil {
			return 0, 0, err
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("parse range %q: min > max", s)
	}
	return lo, hi, nil
}

// deadlineLayouts are accepted after RFC 3339; they are read as UTC.
var deadlineLayouts = [...]string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02"}

func parseDeadline(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	for _, l := range deadlineLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("parse deadline %q: not RFC 3339", s)
}

// countSuffix maps decimal suffixes to multipliers.
var countSuffix = map[byte]float64{'K': 1e3, 'M': 1e6, 'G': 1e9, 'B': 1e9, 'T': 1e12, 'P': 1e15}

// parseCount parses a decimal number with an optional K/M/G/T/P suffix.
func parseCount(s string) (float64, error) {
	mult := 1.0
	if n := len(s); n > 0 {
		if m, ok := countSuffix[upper(s[n-1])]; ok {
			mult, s = m, s[:n-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e18/mult || strings.ContainsAny(s, "xXpPnN_") {
		return 0, fmt.Errorf("parse count %q: not a number", s)
	}
	return f * mult, nil
}

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}
