//go:build !dcgm

package dcgm

import (
	"context"
	"fmt"
)

// builtDCGM: this binary was built without the dcgm source.
const builtDCGM = false

// NewDCGMSource fails: this binary was built without the dcgm tag.
func NewDCGMSource(cfg DCGMConfig) (*DCGMSource, error) {
	return nil, fmt.Errorf("open dcgm source: built without DCGM support (rebuild with -tags dcgm): %w", ErrNotBuilt)
}

// DCGMSource is a placeholder in builds without the dcgm tag.
type DCGMSource struct{}

// Snapshot always fails in builds without the dcgm tag.
func (*DCGMSource) Snapshot(context.Context) ([]Sample, error) {
	return nil, fmt.Errorf("dcgm snapshot: built without DCGM support (rebuild with -tags dcgm): %w", ErrNotBuilt)
}

// Close does nothing.
func (*DCGMSource) Close() error { return nil }
