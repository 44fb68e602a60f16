//go:build !nvml

package dcgm

import (
	"context"
	"fmt"
)

// builtNVML: this binary was built without the nvml source.
const builtNVML = false

// NewNVMLSource fails: this binary was built without the nvml tag.
func NewNVMLSource(cfg NVMLConfig) (*NVMLSource, error) {
	return nil, fmt.Errorf("open nvml source: built without NVML support (rebuild with -tags nvml): %w", ErrNotBuilt)
}

// NVMLSource is a placeholder in builds without the nvml tag.
type NVMLSource struct{}

// Snapshot always fails in builds without the nvml tag.
func (*NVMLSource) Snapshot(context.Context) ([]Sample, error) {
	return nil, fmt.Errorf("nvml snapshot: built without NVML support (rebuild with -tags nvml): %w", ErrNotBuilt)
}

// Close does nothing.
func (*NVMLSource) Close() error { return nil }
