package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// GPUPower is the power draw of one GPU: IdleW when no job holds it, BusyW
// when a job does (the simulator does not model partial utilization).
type GPUPower struct {
	IdleW float64 `json:"idle_w"`
	BusyW float64 `json:"busy_w"`
	// Source says where the numbers come from (published vs assumed).
	Source string `json:"source"`
}

// defaultPower is the built-in power table by GPU type (lower case). Busy
// figures are the vendors' published board power limits (TDP); training
// jobs commonly run at or near them, so BusyW is an upper-end estimate.
// Idle figures are ASSUMPTIONS (typical idle draw at the lowest performance
// state as reported by nvidia-smi/DCGM on such boards), not datasheet
// values; a site should replace them with its own DCGM idle readings
// (--power TYPE=IDLE:BUSY).
var defaultPower = map[string]GPUPower{
	"t4":   {IdleW: 10, BusyW: 70, Source: "busy: NVIDIA T4 datasheet 70 W TDP (published); idle 10 W assumed"},
	"v100": {IdleW: 40, BusyW: 300, Source: "busy: NVIDIA V100 SXM2 datasheet 300 W (published); idle 40 W assumed"},
	"p100": {IdleW: 30, BusyW: 250, Source: "busy: NVIDIA P100 PCIe datasheet 250 W (published); idle 30 W assumed"},
	"a10":  {IdleW: 20, BusyW: 150, Source: "busy: NVIDIA A10 datasheet 150 W (published); idle 20 W assumed"},
	"a100": {IdleW: 50, BusyW: 400, Source: "busy: NVIDIA A100 SXM4 datasheet 400 W (published); idle 50 W assumed"},
	"h100": {IdleW: 70, BusyW: 700, Source: "busy: NVIDIA H100 SXM5 datasheet 700 W (published); idle 70 W assumed"},
}

// unknownPower is used for GPU types not in the table; both values are
// assumptions (a mid-range 300 W data-centre board).
var unknownPower = GPUPower{IdleW: 50, BusyW: 300, Source: "unknown GPU type: 50 W idle / 300 W busy assumed"}

// PowerModel maps GPU types to power draws. The zero value uses the
// built-in table.
type PowerModel struct {
	Overrides map[string]GPUPower
}

// For returns the power of a GPU type, overrides first.
func (m PowerModel) For(gpuType string) GPUPower {
	t := strings.ToLower(gpuType)
	if p, ok := m.Overrides[t]; ok {
		return p
	}
	if p, ok := defaultPower[t]; ok {
		return p
	}
	return unknownPower
}

// ParsePower parses TYPE=IDLE:BUSY (watts), e.g. "t4=12:70".
func ParsePower(s string) (string, GPUPower, error) {
	typ, vals, ok := strings.Cut(s, "=")
	idle, busy, ok2 := strings.Cut(vals, ":")
	if !ok || !ok2 || typ == "" {
		return "", GPUPower{}, fmt.Errorf("power %q: want TYPE=IDLE_W:BUSY_W, e.g. t4=10:70", s)
	}
	i, err1 := strconv.ParseFloat(idle, 64)
	b, err2 := strconv.ParseFloat(busy, 64)
	if err1 != nil || err2 != nil || i < 0 || b < i {
		return "", GPUPower{}, fmt.Errorf("power %q: want 0 ≤ IDLE_W ≤ BUSY_W", s)
	}
	return strings.ToLower(typ), GPUPower{IdleW: i, BusyW: b, Source: "configured"}, nil
}

// PowerTable lists the built-in table, sorted by type (for docs and help).
func PowerTable() []string {
	var out []string
	for t, p := range defaultPower {
		out = append(out, fmt.Sprintf("%s: idle %.0f W, busy %.0f W (%s)", t, p.IdleW, p.BusyW, p.Source))
	}
	sort.Strings(out)
	return out
}

// energyKWh is the GPU energy of a run: busy GPU-seconds at BusyW plus the
// remaining GPU-seconds of the window at IdleW.
func energyKWh(p GPUPower, gpus int, window, busyGPUSeconds float64) float64 {
	idle := max(0, float64(gpus)*window-busyGPUSeconds)
	return (busyGPUSeconds*p.BusyW + idle*p.IdleW) / 3.6e6
}
