package planner

import (
	"context"
	"sort"
)

// listPolicy is the shared core of the fixed-size baselines (fifo, sjf,
// qssf): every job keeps its requested GPUs, jobs are ordered by key, and
// jobs start in that order until the first one that does not fit (no
// backfill: head-of-line blocking is part of the published baselines).
type listPolicy struct {
	name string
	o    Options
	// key orders the jobs of an island (lower first); dur is the job's
	// duration on its requested GPUs.
	key func(ji *jobInfo, dur float64) float64
	// extra reasons added to every ranked decision (e.g. oracle).
	extra []Reason
	// memo is the owning policy's per-job cache (never changes a plan).
	memo *memoSlot
}

func (lp *listPolicy) plan(ctx context.Context, s *Snapshot) (Plan, error) {
	return planIslands(ctx, s, &lp.o, lp.memo, lp.name, lp.planIsland)
}

func (lp *listPolicy) planIsland(c *cycle, isl *island) []*planned {
	var queue []*planned
	for _, ji := range isl.jobs {
		d, r := c.runAt(ji, max(1, ji.size), psFor(ji, ji.size))
		pl := c.newPlanned(ji)
		pl.dur = d
		pl.reasons = append(append(sizeReasons(ji, ji.size), r), lp.extra...)
		pl.key = lp.key(ji, d.Seconds())
		queue = append(queue, pl)
	}
	sort.SliceStable(queue, func(a, b int) bool {
		x, y := queue[a], queue[b]
		if x.ji.aged != y.ji.aged {
			return x.ji.aged
		}
		if x.key != y.key {
			return x.key < y.key
		}
		return x.ji.job.ID < y.ji.job.ID
	})
	blocked := false
	for _, pl := range queue {
		c.admitFixed(pl, &blocked)
	}
	return queue
}

// admitFixed tries to start a fixed-size plan now, in order; once a job
// could not start, later jobs wait behind it.
func (c *cycle) admitFixed(pl *planned, blocked *bool) {
	ji := pl.ji
	if _, ok := c.sizeShape(ji); !ok {
		pl.reasons = append([]Reason{ReasonNoShapeFits}, pl.reasons...)
		return
	}
	if ji.notYet > 0 { // Slurm does not consider it yet: it neither starts nor blocks
		pl.reasons = append([]Reason{ji.notYetReason()}, pl.reasons...)
		return
	}
	if *blocked {
		pl.reasons = append([]Reason{ReasonWaitOrder}, pl.reasons...)
		return
	}
	if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
		*blocked = true
		pl.reasons = append([]Reason{ReasonBurstBufferFull}, pl.reasons...)
		return
	}
	nodes, ok := c.place(ji.isl, pl.sh, ji.cpuPerW, ji.memPerW)
	if !ok {
		*blocked = true
		pl.reasons = append([]Reason{ReasonWaitResources}, pl.reasons...)
		return
	}
	if ji.bbPool >= 0 {
		c.bbFree[ji.bbPool] -= ji.bb
	}
	pl.start, pl.nodes = true, nodes
	pl.reasons = append([]Reason{ReasonAdmitted}, pl.reasons...)
}

// psFor is the PS count used for a fixed-size PS job: the hint's minimum,
// or half the workers for ps=auto (at least 1); 0 for other architectures.
func psFor(ji *jobInfo, w int) int {
	if ji.pmax == 0 {
		return 0
	}
	if ji.psPerW {
		return w
	}
	if ji.psAuto {
		return max(1, w/2)
	}
	return ji.pmin
}
