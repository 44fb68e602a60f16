package main

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
	"github.com/urfave/cli/v2"
)

const flagSlurmMapping = "slurm-mapping"

// slurmMapper reads GPU holdings from Slurm itself: the running jobs'
// allocated GRES indices per node (gres_detail, device minor order), which is
// exact on shared nodes. The snapshot function is a slurm.Client's Snapshot.
type slurmMapper struct {
	snapshot func(ctx context.Context) (*planner.Snapshot, error)
}

func (m slurmMapper) Mapping(ctx context.Context, _ time.Time, _ []dcgm.Sample) (gpuMapping, error) {
	s, err := m.snapshot(ctx)
	if err != nil {
		return gpuMapping{}, fmt.Errorf("gpu mapping from slurm: %w", err)
	}
	out := gpuMapping{Kind: dcgm.ByMinor}
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

// slurmMapperFlags are collect's flags for the Slurm mapping.
func slurmMapperFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: flagSlurmMapping, EnvVars: []string{"STRATA_SLURM_MAPPING"},
			Usage: "attribute GPUs to jobs from slurmrestd (running jobs' GRES indices); needs --slurm-url and a token"},
	}, slurmFlags()...)
}

// newSlurmMapper connects to slurmrestd when --slurm-mapping is set.
func newSlurmMapper(c *cli.Context) (gpuJobMapper, error) {
	if !c.Bool(flagSlurmMapping) {
		return nil, nil
	}
	cl, err := connectSlurm(c)
	if err != nil {
		return nil, err
	}
	return slurmMapper{snapshot: cl.Snapshot}, nil
}
