package dcgm

import "strings"

// quantity is what a dcgm-exporter metric family contributes to a Sample.
type quantity int

const (
	qNone quantity = iota
	qPower
	qEnergy
	qUtilGPU
	qUtilMem
	qMemUsed
	qMemFree
	qMemTotal
)

// unit is the unit a metric family reports in; the parser converts to the
// Sample's units (W, mJ, %, bytes).
type unit int

const (
	uNative unit = iota // already in the Sample's unit
	uMilliJoule
	uJoule
	uPercent
	uRatio
	uMiB
	uBytes
	uWatt
)

// exporterField describes one metric family name.
type exporterField struct {
	q quantity
	u unit // default unit; the # HELP text may override it
}

// exporterFields maps upper-cased metric names of dcgm-exporter ≤ 4.8
// (default-counters.csv) and 4.9+ (DCGM 4.7 canonical names) to quantities.
// A constant table: never mutated.
var exporterFields = map[string]exporterField{
	// ≤ 4.8 (field ids 155, 156, 203, 204, 252, 251)
	"DCGM_FI_DEV_POWER_USAGE":              {qPower, uWatt},
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": {qEnergy, uMilliJoule},
	"DCGM_FI_DEV_GPU_UTIL":                 {qUtilGPU, uPercent},
	"DCGM_FI_DEV_MEM_COPY_UTIL":            {qUtilMem, uPercent},
	"DCGM_FI_DEV_FB_USED":                  {qMemUsed, uMiB},
	"DCGM_FI_DEV_FB_FREE":                  {qMemFree, uMiB},
	"DCGM_FI_DEV_FB_TOTAL":                 {qMemTotal, uMiB},
	// 4.9+ (DCGM 4.7 names): J, ratios, bytes
	"DCGM_FI_DEV_BOARD_POWER_WATTS":       {qPower, uWatt},
	"DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL": {qEnergy, uJoule},
	"DCGM_FI_DEV_GPU_UTIL_RATIO":          {qUtilGPU, uRatio},
	"DCGM_FI_DEV_MEMORY_UTIL_RATIO":       {qUtilMem, uRatio},
	"DCGM_FI_DEV_MEM_COPY_UTIL_RATIO":     {qUtilMem, uRatio},
	"DCGM_FI_DEV_FB_USED_BYTES":           {qMemUsed, uBytes},
	"DCGM_FI_DEV_FB_FREE_BYTES":           {qMemFree, uBytes},
	"DCGM_FI_DEV_FB_CAPACITY_BYTES":       {qMemTotal, uBytes},
}

// unitFromHelp reads the unit from a # HELP text such as "Power draw (in W)."
// or "Total energy consumption since boot (in J)."; it returns def when the
// text names no unit it knows.
func unitFromHelp(help string, def unit) unit {
	h := strings.ToLower(help)
	switch {
	case strings.Contains(h, "(in mj)"):
		return uMilliJoule
	case strings.Contains(h, "(in j)"), strings.Contains(h, "joules"):
		return uJoule
	case strings.Contains(h, "(in %)"):
		return uPercent
	case strings.Contains(h, "ratio"), strings.Contains(h, "(0-1)"), strings.Contains(h, "(0..1)"):
		return uRatio
	case strings.Contains(h, "(in mib)"):
		return uMiB
	case strings.Contains(h, "(in bytes)"), strings.Contains(h, "(in b)"):
		return uBytes
	}
	return def
}

// gpuAcc accumulates one GPU's families during a parse.
type gpuAcc struct {
	Sample
	free uint64 // bytes, from FB_FREE; total = used + free when no total is exported
}

// apply stores v (in unit u) into the sample field for q.
func (q quantity) apply(s *gpuAcc, v float64, u unit) {
	switch q {
	case qPower:
		s.PowerW = v
	case qEnergy:
		if u == uJoule {
			v *= 1000
		}
		s.EnergyMJ = uint64(v + 0.5)
	case qUtilGPU:
		s.UtilGPU = percent(v, u)
	case qUtilMem:
		s.UtilMem = percent(v, u)
	case qMemUsed:
		s.MemUsed = toBytes(v, u)
	case qMemFree:
		s.free = toBytes(v, u)
	case qMemTotal:
		s.MemTotal = toBytes(v, u)
	}
}

func percent(v float64, u unit) float64 {
	if u == uRatio {
		return v * 100
	}
	return v
}

func toBytes(v float64, u unit) uint64 {
	if u == uMiB {
		return uint64(v) << 20
	}
	return uint64(v)
}
