package burstbuffer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// units maps a size suffix (upper case, without a trailing "B" or "IB") to
// its multiplier. Like Slurm's burst-buffer plugins, every suffix is binary:
// "600G", "600GB" and "600GiB" are all 600·2^30 bytes.
var units = map[string]int64{
	"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50,
}

// ParseSize parses a burst-buffer size: a non-negative number (decimals
// allowed, e.g. "1.5T") followed by an optional unit K, M, G, T or P, itself
// optionally followed by "B" or "iB" (case-insensitive). A bare number is in
// bytes. The result is rounded down to whole bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("parse size %q: no number", s)
	}
	num, err := strconv.ParseFloat(t[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("parse size %q: %w", s, err)
	}
	unit := strings.ToUpper(t[i:])
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	mult, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("parse size %q: unknown unit %q (want K, M, G, T or P)", s, t[i:])
	}
	v := num * float64(mult)
	if !(v < math.MaxInt64) { // float64(MaxInt64) is 2^63, one past the largest int64
		return 0, fmt.Errorf("parse size %q: too large (at most 8E, 2^63-1 bytes)", s)
	}
	return int64(v), nil
}

// FormatSize renders bytes with the largest binary unit that divides them
// exactly ("600G", "1T", "1536"), the inverse of ParseSize.
func FormatSize(b int64) string {
	for _, u := range []string{"P", "T", "G", "M", "K"} {
		if m := units[u]; b != 0 && b%m == 0 {
			return strconv.FormatInt(b/m, 10) + u
		}
	}
	return strconv.FormatInt(b, 10)
}
