package dcgm

import (
	"fmt"
	"os"
)

// HostOrDefault returns h, or the machine's host name when h is empty.
func HostOrDefault(h string) (string, error) {
	if h != "" {
		return h, nil
	}
	h, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("get host name: %w", err)
	}
	return h, nil
}

// blankFP64Threshold is DCGM_FT_FP64_BLANK (2^47). DCGM encodes missing
// values as sentinels at or just above it for doubles and just below 2^63
// for int64 (DCGM_FT_INT64_BLANK = 2^63-16, printed by dcgm-exporter as e.g.
// 9223372036854775794). No field Strata reads can legitimately reach 2^47
// (that would be 1.4e11 J of energy or 140 TB of memory), so one threshold
// covers both encodings.
const blankFP64Threshold = 140737488355328.0

// IsBlank reports whether v is one of DCGM's "blank" sentinels (or beyond),
// which sources treat as a missing value.
func IsBlank(v float64) bool {
	return v >= blankFP64Threshold
}
