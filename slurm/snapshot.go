package slurm

import (
	"context"
	"fmt"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/strata-hpc/strata/planner"
)

// Snapshot reads nodes, partitions and the pending, running and suspended
// jobs from slurmrestd into a planner.Snapshot. Slices are sorted (nodes
// and partitions by name, jobs by ID); Partition.TotalGPUs is summed from
// the nodes; running jobs get AttainedGPUSeconds = GPUs × elapsed. Jobs in
// other states (completed, failed, ...) are left out.
func (c *Client) Snapshot(ctx context.Context) (*planner.Snapshot, error) {
	var (
		jobs    []planner.Job
		cluster string
		how     jobsRead
		nodes   []planner.Node
		parts   []planner.Partition
		pools   []planner.BurstBufferPool
		policy  *sitePolicy
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { jobs, cluster, how, err = c.readJobs(gctx); return err })
	g.Go(func() (err error) { nodes, err = c.api.nodes(gctx); return err })
	g.Go(func() (err error) { parts, err = c.api.partitions(gctx); return err })
	g.Go(func() error { policy = c.readSitePolicy(gctx); return nil }) // its failure fails no snapshot
	if c.scontrol != "" {                                              // the pools, beside the REST reads (scontrol.go)
		g.Go(func() error { pools = c.slurmPools(gctx); return nil })
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	now := c.now().UTC()
	s := buildSnapshot(now, cluster, jobs, nodes, parts)
	c.applySitePolicy(s, policy)
	s.BurstBufferPools = poolUsage(c.pools, jobs)
	if c.scontrol != "" {
		s.BurstBufferPools = pools
	}
	c.log.Debug().Str("snapshot_id", s.ID).Int("jobs", len(s.Jobs)).Int("nodes", len(s.Nodes)).
		Bool("jobs_full_read", how.full).Int("jobs_reread", how.reread).Int64("jobs_bytes", how.bytes).Msg("snapshot read")
	return s, nil
}

// buildSnapshot filters, sorts and completes what the adapter read.
func buildSnapshot(now time.Time, cluster string, jobs []planner.Job, nodes []planner.Node, parts []planner.Partition) *planner.Snapshot {
	s := &planner.Snapshot{
		ID:      fmt.Sprintf("%s-%s", orDefault(cluster, "slurm"), now.Format("20060102T150405.000Z")),
		Now:     now,
		Cluster: cluster,
		Nodes:   nodes,
	}
	sort.Slice(s.Nodes, func(i, k int) bool { return s.Nodes[i].Name < s.Nodes[k].Name })
	gpus := make(map[string]int, len(nodes))
	for _, n := range nodes {
		gpus[n.Name] = n.GPUs
	}
	for _, p := range parts {
		for _, n := range p.Nodes {
			p.TotalGPUs += gpus[n]
		}
		s.Partitions = append(s.Partitions, p)
	}
	sort.Slice(s.Partitions, func(i, k int) bool { return s.Partitions[i].Name < s.Partitions[k].Name })
	for _, j := range jobs {
		switch {
		case j.State == planner.JobPending || j.State == planner.JobRunning || j.State == planner.JobSuspended:
		case Ended(string(j.State)) && !j.StartTime.IsZero() && j.EndTime.After(j.StartTime):
			s.Ended = append(s.Ended, j)
			continue
		default:
			continue
		}
		if j.State == planner.JobRunning && !j.StartTime.IsZero() && now.After(j.StartTime) {
			j.AttainedGPUSeconds = float64(j.GPUs()) * now.Sub(j.StartTime).Seconds()
		}
		s.Jobs = append(s.Jobs, j)
	}
	sort.Slice(s.Jobs, func(i, k int) bool { return s.Jobs[i].ID < s.Jobs[k].ID })
	sort.Slice(s.Ended, func(i, k int) bool { return s.Ended[i].ID < s.Ended[k].ID })
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
