package slurm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/planner"
)

// parsePools reads "NAME=SIZE" pool declarations, sorted by name.
func parsePools(specs []string) ([]planner.BurstBufferPool, error) {
	var pools []planner.BurstBufferPool
	seen := map[string]bool{}
	for _, spec := range specs {
		name, size, ok := strings.Cut(strings.TrimSpace(spec), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("burst buffer pool %q: want NAME=SIZE, e.g. nvme=1T", spec)
		}
		if seen[name] {
			return nil, fmt.Errorf("burst buffer pool %q declared twice", name)
		}
		seen[name] = true
		b, err := burstbuffer.ParseSize(size)
		if err != nil {
			return nil, fmt.Errorf("burst buffer pool %q: %w", name, err)
		}
		pools = append(pools, planner.BurstBufferPool{Name: name, CapacityBytes: b})
	}
	sort.Slice(pools, func(i, k int) bool { return pools[i].Name < pools[k].Name })
	return pools, nil
}

// bbIdle are burst-buffer states in which a job holds no pool space yet
// (or any more).
var bbIdle = map[string]bool{"": true, "pending": true, "complete": true, "deleted": true}

// poolUsage copies the declared pools and adds to UsedBytes the space held
// by every job (in any job state) whose burst buffer is allocated, staged
// or in use. A job naming no pool counts against the only pool when exactly
// one is declared.
func poolUsage(declared []planner.BurstBufferPool, jobs []planner.Job) []planner.BurstBufferPool {
	if len(declared) == 0 {
		return nil
	}
	pools := append([]planner.BurstBufferPool(nil), declared...)
	for _, j := range jobs {
		if j.BurstBufferBytes == 0 || bbIdle[strings.ToLower(j.BurstBufferState)] {
			continue
		}
		for i := range pools {
			if pools[i].Name == j.BurstBufferPool || j.BurstBufferPool == "" && len(pools) == 1 {
				pools[i].UsedBytes += j.BurstBufferBytes
			}
		}
	}
	return pools
}
