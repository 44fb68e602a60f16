//go:build dcgm

package dcgm

import (
	"context"
	"fmt"
	"os"
	"time"

	godcgm "github.com/NVIDIA/go-dcgm/pkg/dcgm"
)

// builtDCGM: this binary has the dcgm source (libdcgm loaded at run time).
const builtDCGM = true

// DCGMSource samples every GPU through libdcgm (loaded at run time). Only one
// DCGMSource should exist per process: go-dcgm keeps process-global state.
type DCGMSource struct {
	host    string
	cleanup func()
	fields  godcgm.FieldHandle
	group   godcgm.GroupHandle
	gpus    []godcgm.Device
}

// dcgmFields are the field ids read on every snapshot, in this order.
func dcgmFields() []godcgm.Short {
	return []godcgm.Short{FieldPowerUsage, FieldTotalEnergy, FieldGPUUtil, FieldMemCopyUtil, FieldFBFree, FieldFBUsed}
}

// NewDCGMSource connects to DCGM and starts watching the energy, power,
// utilization and memory fields of all GPUs. Errors wrap ErrUnavailable
// when libdcgm.so cannot be loaded.
func NewDCGMSource(cfg DCGMConfig) (*DCGMSource, error) {
	host, err := HostOrDefault(cfg.Host)
	if err != nil {
		return nil, err
	}
	var cleanup func()
	if cfg.Address == "" {
		cleanup, err = godcgm.Init(godcgm.Embedded)
	} else {
		sock := "0"
		if cfg.Socket {
			sock = "1"
		}
		cleanup, err = godcgm.Init(godcgm.Standalone, cfg.Address, sock)
	}
	if err != nil {
		return nil, fmt.Errorf("open dcgm source: %w: %w", ErrUnavailable, err)
	}
	s := &DCGMSource{host: host, cleanup: cleanup}
	if err := s.watch(); err != nil {
		cleanup()
		return nil, err
	}
	return s, nil
}

func (s *DCGMSource) watch() error {
	ids, err := godcgm.GetSupportedDevices()
	if err != nil {
		return fmt.Errorf("list dcgm devices: %w", err)
	}
	for _, id := range ids {
		d, err := godcgm.GetDeviceInfo(id)
		if err != nil {
			return fmt.Errorf("dcgm device info %d: %w", id, err)
		}
		s.gpus = append(s.gpus, d)
	}
	s.fields, err = godcgm.FieldGroupCreate(fmt.Sprintf("strata-%d", os.Getpid()), dcgmFields())
	if err != nil {
		return fmt.Errorf("create dcgm field group: %w", err)
	}
	s.group = godcgm.GroupAllGPUs()
	if err := godcgm.WatchFieldsWithGroupEx(s.fields, s.group, int64(time.Second/time.Microsecond), 60, 0); err != nil {
		return fmt.Errorf("watch dcgm fields: %w", err)
	}
	return nil
}

// Snapshot reads the latest watched values of every GPU.
func (s *DCGMSource) Snapshot(ctx context.Context) ([]Sample, error) {
	now := time.Now()
	out := make([]Sample, 0, len(s.gpus))
	for _, d := range s.gpus {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vals, err := godcgm.GetLatestValuesForFields(d.GPU, dcgmFields())
		if err != nil {
			return nil, fmt.Errorf("read dcgm fields of gpu %d: %w", d.GPU, err)
		}
		out = append(out, s.sample(now, d, vals))
	}
	return out, nil
}

func (s *DCGMSource) sample(now time.Time, d godcgm.Device, vals []godcgm.FieldValue_v1) Sample {
	smp := Sample{Time: now, Host: s.host, UUID: d.UUID, Index: int(d.GPU), Minor: -1,
		BusID: d.PCI.BusID, Source: "dcgm", MemTotal: uint64(d.PCI.FBTotal) << 20}
	for _, v := range vals {
		if v.Status != 0 {
			continue
		}
		switch v.FieldId {
		case FieldPowerUsage:
			smp.PowerW = blankFloat(v.Float64())
		case FieldTotalEnergy:
			smp.EnergyMJ = uint64(max(0, blankInt(v.Int64())))
		case FieldGPUUtil:
			smp.UtilGPU = float64(blankInt(v.Int64()))
		case FieldMemCopyUtil:
			smp.UtilMem = float64(blankInt(v.Int64()))
		case FieldFBUsed:
			smp.MemUsed = uint64(max(0, blankInt(v.Int64()))) << 20
		}
	}
	return smp
}

// Close stops watching and releases DCGM.
func (s *DCGMSource) Close() error {
	err := godcgm.FieldGroupDestroy(s.fields)
	s.cleanup()
	if err != nil {
		return fmt.Errorf("close dcgm source: %w", err)
	}
	return nil
}

func blankInt(v int64) int64 {
	if IsBlank(float64(v)) {
		return 0
	}
	return v
}

func blankFloat(v float64) float64 {
	if IsBlank(v) {
		return 0
	}
	return v
}
