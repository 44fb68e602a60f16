package slurm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/planner"
)

func (v *v0042) nodes(ctx context.Context) ([]planner.Node, error) {
	resp, err := v.raw.SlurmV0042GetNodes(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	var body api.V0042OpenapiNodesResp
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	out := make([]planner.Node, 0, len(body.Nodes))
	for i := range body.Nodes {
		n, err := nodeFromV0042(&body.Nodes[i])
		if err != nil {
			return nil, fmt.Errorf("list nodes: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
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
	resp, err := v.raw.SlurmV0042GetPartitions(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	var body api.V0042OpenapiPartitionResp
	err = decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	})
	if ae := (*APIError)(nil); errors.As(err, &ae) && len(body.Partitions) > 0 && onlyAccountingErrors(ae) {
		// slurmdbd is down: slurmrestd still lists the partitions but
		// fails the answer because it could not name their TRES.
		v.c.log.Warn().Str("slurmrestd", ae.Error()).Msg("slurmdbd unreachable: partitions read without accounting")
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	out := make([]planner.Partition, 0, len(body.Partitions))
	for i := range body.Partitions {
		p, err := partitionFromV0042(&body.Partitions[i])
		if err != nil {
			return nil, fmt.Errorf("list partitions: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
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
