//go:build nvml

package dcgm

import (
	"context"
	"fmt"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// builtNVML: this binary has the nvml source (libnvidia-ml loaded at run time).
const builtNVML = true

// NVMLSource samples every GPU of this node through libnvidia-ml.so.1,
// loaded at run time.
type NVMLSource struct {
	host string
}

// NewNVMLSource initialises NVML. Errors wrap ErrUnavailable when the
// library cannot be loaded (no NVIDIA driver on this node).
func NewNVMLSource(cfg NVMLConfig) (*NVMLSource, error) {
	host, err := HostOrDefault(cfg.Host)
	if err != nil {
		return nil, err
	}
	if cfg.LibraryPath != "" {
		if err := nvml.SetLibraryOptions(nvml.WithLibraryPath(cfg.LibraryPath)); err != nil {
			return nil, fmt.Errorf("open nvml source: set library path: %w", err)
		}
	}
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("open nvml source: %w: %s", ErrUnavailable, nvml.ErrorString(ret))
	}
	return &NVMLSource{host: host}, nil
}

// Snapshot reads every GPU NVML can see.
func (s *NVMLSource) Snapshot(ctx context.Context) ([]Sample, error) {
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("nvml device count: %s", nvml.ErrorString(ret))
	}
	now := time.Now()
	out := make([]Sample, 0, n)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("nvml device %d: %s", i, nvml.ErrorString(ret))
		}
		smp, err := s.read(now, i, d)
		if err != nil {
			return nil, err
		}
		out = append(out, smp)
	}
	return out, nil
}

// read fills one sample; optional quantities the GPU does not support stay
// zero, but a missing UUID is an error.
func (s *NVMLSource) read(now time.Time, i int, d nvml.Device) (Sample, error) {
	uuid, ret := d.GetUUID()
	if ret != nvml.SUCCESS {
		return Sample{}, fmt.Errorf("nvml uuid of device %d: %s", i, nvml.ErrorString(ret))
	}
	smp := Sample{Time: now, Host: s.host, UUID: uuid, Index: i, Minor: -1, Source: "nvml"}
	if m, ret := d.GetMinorNumber(); ret == nvml.SUCCESS {
		smp.Minor = m
	}
	if p, ret := d.GetPciInfo(); ret == nvml.SUCCESS {
		smp.BusID = cString(p.BusId[:])
	}
	if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
		smp.UtilGPU, smp.UtilMem = float64(u.Gpu), float64(u.Memory)
	}
	if mw, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
		smp.PowerW = float64(mw) / 1000
	}
	if e, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
		smp.EnergyMJ = e
	}
	if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		smp.MemUsed, smp.MemTotal = m.Used, m.Total
	}
	if procs, ret := d.GetComputeRunningProcesses(); ret == nvml.SUCCESS {
		for _, p := range procs {
			smp.PIDs = append(smp.PIDs, int32(p.Pid))
		}
	}
	return smp, nil
}

// Close shuts NVML down.
func (s *NVMLSource) Close() error {
	if ret := nvml.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("close nvml source: %s", nvml.ErrorString(ret))
	}
	return nil
}

func cString(b []uint8) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
