package sim

import (
	"context"

	"github.com/strata-hpc/strata/planner"
)

// greedy is a test policy: it starts pending jobs in ID order with their
// requested count (or want(job) when set), skipping those that do not fit
// the free GPUs, and places them on the first nodes with room.
type greedy struct {
	want func(j *planner.Job) int
}

func (g greedy) Plan(_ context.Context, s *planner.Snapshot) (planner.Plan, error) {
	free := map[string]int{}
	for _, n := range s.Nodes {
		free[n.Name] = n.FreeGPUs()
	}
	var ds []planner.Decision
	rank := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.State != planner.JobPending {
			continue
		}
		w := j.GPUs()
		if g.want != nil {
			w = g.want(j)
		}
		rank++
		d := planner.Decision{JobID: j.ID, Action: planner.ActionKeep, Rank: rank, Workers: w,
			Reasons: []planner.Reason{planner.ReasonWaitResources}}
		if nodes, ok := firstFit(s.Nodes, free, w); ok {
			d.Start, d.Placement, d.Reasons = true, nodes, []planner.Reason{planner.ReasonAdmitted}
		}
		ds = append(ds, d)
	}
	return planner.Plan{SnapshotID: s.ID, Policy: "greedy-test", Decisions: ds}, nil
}

// firstFit takes w GPUs from the nodes in order (several nodes when
// needed), updating free; it returns nothing and changes nothing when w
// GPUs are not free.
func firstFit(nodes []planner.Node, free map[string]int, w int) ([]string, bool) {
	total := 0
	for _, n := range nodes {
		total += free[n.Name]
	}
	if total < w {
		return nil, false
	}
	var out []string
	for _, n := range nodes {
		if w == 0 {
			break
		}
		if k := min(w, free[n.Name]); k > 0 {
			free[n.Name] -= k
			w -= k
			out = append(out, n.Name)
		}
	}
	return out, true
}

// scripted is a test policy that returns fixed decisions at given ticks
// (by snapshot time in seconds) and nothing otherwise.
type scripted map[float64][]planner.Decision

func (p scripted) Plan(_ context.Context, s *planner.Snapshot) (planner.Plan, error) {
	t := s.Now.Sub(simEpoch).Seconds()
	return planner.Plan{SnapshotID: s.ID, Decisions: p[t]}, nil
}
