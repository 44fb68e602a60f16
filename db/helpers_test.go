package db_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// ingestRecording plays a recording and its schedule through the same steps
// as `strata collect --source replay`: Slurm-style allocations → UUIDs by
// minor number → assignment intervals → batches of sweepsPerBatch sweeps.
// before(i) runs before batch i is written.
func ingestRecording(t *testing.T, in *db.Ingester, samples []dcgm.Sample, sched dcgm.Schedule,
	sweepsPerBatch int, before func(i int)) (spooled int) {
	t.Helper()
	ctx := context.Background()
	src := dcgm.NewReplaySource(samples, dcgm.ReplayConfig{})
	tr := dcgm.NewTracker(nil)
	var b db.Batch
	b.Jobs = scheduleJobs(sched)
	b.JobEnds = map[int64]time.Time{}
	for _, j := range sched.Jobs {
		b.JobEnds[j.Job] = j.End
	}
	flush := func(i int) {
		if before != nil {
			before(i)
		}
		res, err := in.Write(ctx, b)
		if err != nil {
			t.Fatalf("write batch %d: %v", i, err)
		}
		if res.Spooled {
			spooled++
		}
		b = db.Batch{}
	}
	batch := 0
	for sweep := 0; ; sweep++ {
		s, err := src.Snapshot(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		now := s[0].Time
		jobs, _ := dcgm.ResolveUUIDs(dcgm.FromSlurm(sched.Active(now)), s, dcgm.ByMinor)
		opened, closed := tr.Observe(now, jobs)
		b.Samples = append(b.Samples, s...)
		b.Assignments = append(append(b.Assignments, opened...), closed...)
		if (sweep+1)%sweepsPerBatch == 0 {
			flush(batch)
			batch++
		}
	}
	if len(b.Samples) > 0 || len(b.Assignments) > 0 {
		flush(batch)
	}
	return spooled
}

func scheduleJobs(s dcgm.Schedule) []planner.Job {
	var out []planner.Job
	for _, j := range s.Jobs {
		pj := planner.Job{ID: j.Job, Name: j.Name, User: j.User, Account: j.Account, Partition: j.Partition,
			State: planner.JobCompleted, SubmitTime: j.Submit, StartTime: j.Start}
		for _, a := range j.Allocs {
			pj.GPUsPerJob += len(a.Indices)
			pj.NodeList = append(pj.NodeList, a.Node)
		}
		out = append(out, pj)
	}
	return out
}

func openSpool(t *testing.T) *db.Spool {
	t.Helper()
	sp, err := db.OpenSpool(t.TempDir()+"/spool.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
