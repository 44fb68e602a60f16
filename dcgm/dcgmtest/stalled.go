package dcgmtest

import (
	"time"

	"github.com/strata-hpc/strata/dcgm"
)

// Stalled returns a copy of the demo recording's samples in which bob's
// job 102 (gpu-a, minors 2 and 3) stalls on input after 12:03 up to 12:05:
// its GPUs stay allocated at 2 % utilization (1 % memory), so reports have
// idle-GPU energy to show. Energy and power are unchanged. It is
// dcgm/testdata/recording-stalled.jsonl, the recording of the examples in
// docs/reports.md and of the browser test.
func Stalled(samples []dcgm.Sample) []dcgm.Sample {
	out := append([]dcgm.Sample(nil), samples...)
	stall := time.Date(2026, 11, 20, 12, 3, 0, 0, time.UTC)
	end := time.Date(2026, 11, 20, 12, 5, 0, 0, time.UTC)
	for i, s := range out {
		if s.Host == "gpu-a" && (s.Minor == 2 || s.Minor == 3) && s.Time.After(stall) && !s.Time.After(end) {
			out[i].UtilGPU, out[i].UtilMem = 2, 1
		}
	}
	return out
}
