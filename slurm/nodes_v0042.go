package slurm

import (
	"context"
	"fmt"
	"strings"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/planner"
)

func (v *v0042) nodes(ctx context.Context) ([]planner.Node, error) {
	return readNodes(v.raw.SlurmV0042GetNodes(ctx, nil))
}

func nodeFromV0042(in *api.V0042Node) (planner.Node, error) {
	n := planner.Node{
		Name:       deref(in.Name),
		Partitions: deref(in.Partitions),
		CPUs:       int(deref(in.Cpus)),
		AllocCPUs:  int(deref(in.AllocCpus)),
		MemoryMB:   deref(in.RealMemory),
		AllocMemMB: deref(in.AllocMemory),
	}
	if in.State != nil {
		for _, s := range *in.State {
			n.State = append(n.State, string(s))
		}
	}
	total, err := parseGRES(deref(in.Gres))
	if err != nil {
		return planner.Node{}, fmt.Errorf("node %s: %w", n.Name, err)
	}
	used, err := parseGRES(deref(in.GresUsed))
	if err != nil {
		return planner.Node{}, fmt.Errorf("node %s: %w", n.Name, err)
	}
	n.GPUs, n.AllocGPUs, n.GPUType = total.Count, used.Count, total.Type
	return n, nil
}

func (v *v0042) partitions(ctx context.Context) ([]planner.Partition, error) {
	return v.c.readPartitions(v.raw.SlurmV0042GetPartitions(ctx, nil))
}

func partitionFromV0042(in *api.V0042PartitionInfo) (planner.Partition, error) {
	p := planner.Partition{Name: deref(in.Name)}
	if in.Nodes != nil {
		names, err := expandHostlist(deref(in.Nodes.Configured))
		if err != nil {
			return planner.Partition{}, fmt.Errorf("partition %s: %w", p.Name, err)
		}
		p.Nodes = names
	}
	if in.Cpus != nil {
		p.TotalCPUs = int(deref(in.Cpus.Total))
	}
	if in.Maximums != nil {
		if m, ok := u32(in.Maximums.Time); ok {
			p.MaxTime = time.Duration(m) * time.Minute
		}
	}
	if in.Priority != nil && in.Priority.JobFactor != nil {
		p.PriorityJobFactor = int64(*in.Priority.JobFactor)
	}
	return p, nil
}

// onlyAccountingErrors: every error of the answer comes from slurmrestd's
// queries to slurmdbd (source slurmdb_*).
func onlyAccountingErrors(e *APIError) bool {
	for _, p := range e.Errors {
		if !strings.HasPrefix(p.Source, "slurmdb_") {
			return false
		}
	}
	return len(e.Errors) > 0
}
