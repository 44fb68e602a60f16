// Package dcgm reads GPU telemetry from several sources (DCGM, NVML,
// dcgm-exporter scrapes, recorded replays) into one Sample type keyed by GPU
// UUID, and turns GPU→job mapping inputs into assignment intervals.
//
// The DCGM and NVML sources need cgo and live behind the dcgm and nvml build
// tags; without the tag their constructors return ErrNotBuilt. The package
// imports nothing else of Strata.
package dcgm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sample is one reading of one physical GPU. Energy is the GPU's cumulative
// counter (it restarts from zero when the driver is reloaded); consumers
// compute deltas, never integrate PowerW.
type Sample struct {
	Time time.Time `json:"time"`
	Host string    `json:"host"`
	// UUID is the primary key of a GPU; never trust indices across tools.
	UUID string `json:"uuid"`
	// Index is the NVML index / DCGM gpu id (informational).
	Index int `json:"index"`
	// Minor is the device minor number (/dev/nvidiaN), the order Slurm's GRES
	// IDX uses; -1 when the source does not know it.
	Minor    int     `json:"minor"`
	BusID    string  `json:"bus_id,omitempty"`
	UtilGPU  float64 `json:"util_gpu"` // 0..100 %
	UtilMem  float64 `json:"util_mem"` // 0..100 %
	PowerW   float64 `json:"power_w"`
	EnergyMJ uint64  `json:"energy_mj"` // cumulative, since driver load
	MemUsed  uint64  `json:"mem_used"`  // bytes
	MemTotal uint64  `json:"mem_total"` // bytes
	PIDs     []int32 `json:"pids,omitempty"`
	// Source names the producer: "nvml", "dcgm", "exporter" or "replay".
	Source string `json:"source"`
}

// MaxPowerW bounds a plausible power reading; no GPU draws 10 kW.
const MaxPowerW = 10000

// Check reports what is implausible in a sample (no UUID, no time, a
// utilization outside 0..100 %, a power outside 0..MaxPowerW or not
// finite), naming the GPU; nil when the sample is plausible. Sources
// refuse such samples instead of storing them.
func (s Sample) Check() error {
	var errs []error
	if s.UUID == "" {
		errs = append(errs, errors.New("no GPU UUID"))
	}
	if s.Time.IsZero() {
		errs = append(errs, errors.New("no time"))
	}
	for _, f := range []struct {
		name   string
		v, max float64
		unit   string
	}{{"utilization", s.UtilGPU, 100, "%"}, {"memory-copy utilization", s.UtilMem, 100, "%"}, {"power", s.PowerW, MaxPowerW, "W"}} {
		if !(f.v >= 0 && f.v <= f.max) {
			errs = append(errs, fmt.Errorf("%s %v %s outside 0..%v", f.name, f.v, f.unit, f.max))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("GPU %q on %q: %w", s.UUID, s.Host, err)
	}
	return nil
}

// Source produces one reading per GPU it can see. Snapshot must honour ctx;
// it returns io.EOF when a finite source (a replay) is exhausted. Samples of
// one call may come from several hosts.
type Source interface {
	Snapshot(ctx context.Context) ([]Sample, error)
}

// ErrNotBuilt is returned by the DCGM and NVML constructors of a binary built
// without the corresponding build tag.
var ErrNotBuilt = errors.New("GPU library support not compiled in")

// ErrUnavailable wraps failures to load a GPU library at run time
// (libdcgm.so or libnvidia-ml.so.1 missing, no GPU).
var ErrUnavailable = errors.New("GPU library unavailable")

// Sources lists the sample sources compiled into this binary: exporter
// and replay always, dcgm and nvml when built with their tags (the .deb
// has both; their libraries are loaded at run time).
func Sources() []string {
	out := []string{"exporter", "replay"}
	if builtDCGM {
		out = append(out, "dcgm")
	}
	if builtNVML {
		out = append(out, "nvml")
	}
	return out
}

// Library names the run-time library of a GPU source ("" for others).
func Library(source string) string {
	switch source {
	case "dcgm":
		return "libdcgm.so (NVIDIA DCGM, package datacenter-gpu-manager; a libdcgm.so symlink to libdcgm.so.4 where only that exists)"
	case "nvml":
		return "libnvidia-ml.so.1 (the NVIDIA driver)"
	}
	return ""
}

// Watched DCGM field ids. They stay stable across the dcgm-exporter 4.9
// renaming, which is why the exporter parser keys its table by them.
const (
	FieldPowerUsage  = 155 // W
	FieldTotalEnergy = 156 // mJ, cumulative
	FieldGPUUtil     = 203 // %
	FieldMemCopyUtil = 204 // %
	FieldFBFree      = 251 // MiB
	FieldFBUsed      = 252 // MiB
)
