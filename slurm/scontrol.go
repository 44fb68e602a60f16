package slurm

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/planner"
)

// slurmrestd does not report burst-buffer pools; `scontrol show burst` does
// (burst_buffer/lua's pool report: capacity, use and granularity). Where
// the planner's host has scontrol and no pools are declared, each snapshot
// reads them from it; a failed read keeps the last pools read (logged).

// scontrolTimeout bounds one `scontrol show burst`.
const scontrolTimeout = 10 * time.Second

// scontrolPath is the scontrol to run for the pools: path as configured,
// "scontrol" looked up on PATH when empty, "" (none) for "none" or when it
// is not found.
func scontrolPath(path string, log zerolog.Logger) string {
	switch path {
	case "none":
		return ""
	case "":
		p, err := exec.LookPath("scontrol")
		if err != nil {
			log.Debug().Msg("no scontrol on PATH and no --slurm-bb-pool: burst-buffer pools unknown")
			return ""
		}
		return p
	}
	return path
}

// poolCache keeps the last pools scontrol reported.
type poolCache struct {
	mu    sync.Mutex
	pools []planner.BurstBufferPool
}

// slurmPools runs `scontrol show burst` and returns its pools, or the last
// ones read when it fails.
func (c *Client) slurmPools(ctx context.Context) []planner.BurstBufferPool {
	pools, err := readScontrolPools(ctx, c.scontrol)
	c.poolCache.mu.Lock()
	defer c.poolCache.mu.Unlock()
	if err != nil {
		c.log.Warn().Err(err).Int("pools_kept", len(c.poolCache.pools)).Msg("burst-buffer pools unread: the last ones read are kept")
		return append([]planner.BurstBufferPool(nil), c.poolCache.pools...)
	}
	c.poolCache.pools = pools
	return append([]planner.BurstBufferPool(nil), pools...)
}

// readScontrolPools runs scontrol show burst and converts its pools.
func readScontrolPools(ctx context.Context, scontrol string) ([]planner.BurstBufferPool, error) {
	ctx, cancel := context.WithTimeout(ctx, scontrolTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, scontrol, "show", "burst").Output()
	if err != nil {
		return nil, fmt.Errorf("%s show burst: %w", scontrol, err)
	}
	ps, err := burstbuffer.ParseShowBurst(string(out))
	if err != nil {
		return nil, err
	}
	pools := make([]planner.BurstBufferPool, len(ps))
	for i, p := range ps {
		pools[i] = planner.BurstBufferPool{Name: p.Name, CapacityBytes: p.Total, UsedBytes: p.Used, GranularityBytes: p.Granularity}
	}
	return pools, nil
}
