// Package dcgmtest provides test doubles and synthetic recordings for the
// dcgm package: a Static source and a deterministic recording generator with
// known per-job energy.
package dcgmtest

import (
	"context"

	"github.com/strata-hpc/strata/dcgm"
)

// Static is a dcgm.Source that returns the same samples on every call.
type Static []dcgm.Sample

// Snapshot returns a copy of the samples.
func (s Static) Snapshot(context.Context) ([]dcgm.Sample, error) {
	return append([]dcgm.Sample(nil), s...), nil
}
