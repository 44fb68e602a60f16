package collect

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// Mapper says which jobs hold which GPUs at a moment. Implementations: the
// prolog/epilog mapping directory, a recorded schedule (replays), the
// exporter's hpc_job labels, and the Slurm queue's gres_detail (slurm.go).
type Mapper interface {
	// Mapping returns the holdings at now; samples are the GPUs just read.
	Mapping(ctx context.Context, now time.Time, samples []dcgm.Sample) (Mapping, error)
}

// Mapping is one observation of GPU holdings.
type Mapping struct {
	GPUs []dcgm.JobGPU
	Kind dcgm.IndexKind // what GPUs[i].Index means
	// Jobs carries job metadata when the mapper knows it (schedule, Slurm).
	Jobs []planner.Job
	Ends map[int64]time.Time
}

type mappingDirMapper struct{ dir, host string }

func (m mappingDirMapper) Mapping(_ context.Context, _ time.Time, _ []dcgm.Sample) (Mapping, error) {
	g, err := dcgm.ReadMappingDir(m.dir, m.host)
	return Mapping{GPUs: g, Kind: dcgm.ByDeviceIndex}, err
}

type scheduleMapper struct{ sched dcgm.Schedule }

func (m scheduleMapper) Mapping(_ context.Context, now time.Time, _ []dcgm.Sample) (Mapping, error) {
	out := Mapping{GPUs: dcgm.FromSlurm(m.sched.Active(now)), Kind: dcgm.ByMinor, Ends: map[int64]time.Time{}}
	for _, j := range m.sched.Jobs {
		if now.Before(j.Start) {
			continue
		}
		pj := planner.Job{ID: j.Job, Name: j.Name, User: j.User, Account: j.Account, Partition: j.Partition,
			State: planner.JobRunning, SubmitTime: j.Submit, StartTime: j.Start}
		for _, a := range j.Allocs {
			pj.GPUsPerJob += len(a.Indices)
			pj.NodeList = append(pj.NodeList, a.Node)
		}
		if !now.Before(j.End) {
			pj.State, out.Ends[j.Job] = planner.JobCompleted, j.End
		}
		out.Jobs = append(out.Jobs, pj)
	}
	return out, nil
}

type exporterJobsMapper struct{ src *dcgm.ExporterSource }

func (m exporterJobsMapper) Mapping(context.Context, time.Time, []dcgm.Sample) (Mapping, error) {
	return Mapping{GPUs: m.src.Jobs(), Kind: dcgm.ByDeviceIndex}, nil
}
