package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// slurmMapper reads GPU holdings from Slurm itself: the running jobs'
// allocated GRES indices per node (gres_detail, device minor order), which is
// exact on shared nodes. The snapshot function is a slurm.Client's Snapshot.
type slurmMapper struct {
	snapshot func(ctx context.Context) (*planner.Snapshot, error)
}

func (m slurmMapper) Mapping(ctx context.Context, _ time.Time, _ []dcgm.Sample) (Mapping, error) {
	s, err := m.snapshot(ctx)
	if err != nil {
		return Mapping{}, fmt.Errorf("gpu mapping from slurm: %w", err)
	}
	out := Mapping{Kind: dcgm.ByMinor}
	var allocs []dcgm.SlurmAlloc
	for _, j := range s.Jobs {
		if j.State != planner.JobRunning || len(j.GPUAlloc) == 0 {
			continue
		}
		for _, a := range j.GPUAlloc {
			allocs = append(allocs, dcgm.SlurmAlloc{Job: j.ID, Node: a.Node, Indices: a.Indices})
		}
		out.Jobs = append(out.Jobs, j)
	}
	out.GPUs = dcgm.FromSlurm(allocs)
	return out, nil
}
