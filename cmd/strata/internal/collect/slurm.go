package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// slurmMapper reads GPU holdings from Slurm itself: the running jobs'
// allocated GRES indices per node (gres_detail, device minor order), which is
// exact on shared nodes. The snapshot function is a slurm.Client's Snapshot.
// It also reports, once each, the GPU jobs slurmctld lists as ended
// (Snapshot.Ended), with their end state and time: the job records then
// say how each run ended, which reports and the site's learning read.
type slurmMapper struct {
	snapshot func(ctx context.Context) (*planner.Snapshot, error)
	ended    slurm.EndedRuns // reported, while slurmctld lists them
}

func (m *slurmMapper) Mapping(ctx context.Context, _ time.Time, _ []dcgm.Sample) (Mapping, error) {
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
	m.addEnded(&out, s.Ended)
	return out, nil
}

// addEnded adds the GPU jobs among ended not reported yet, with their ends.
func (m *slurmMapper) addEnded(out *Mapping, ended []planner.Job) {
	jobs := m.ended.New(ended, func(j planner.Job) bool { return j.GPUs() > 0 })
	m.ended.Mark(jobs)
	for _, j := range jobs {
		if out.Ends == nil {
			out.Ends = map[int64]time.Time{}
		}
		out.Ends[j.ID] = j.EndTime
		out.Jobs = append(out.Jobs, j)
	}
}
