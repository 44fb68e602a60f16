package daemon

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// endedRecorder stores the runs slurmctld reports ended (Snapshot.Ended:
// COMPLETED, TIMEOUT, FAILED, …, for MinJobAge after their end) as job
// records, once each, so that calibration, the users' records and the
// history learn from every ended run on a site that runs no collector
// with end times (issue 33: before, only the collector's replayed
// schedules stored ends, and a site's model never learned). The collector
// stores the same facts about the same jobs (db.UpsertJobs is keyed by
// cluster, ID and submit time): whichever writes first, the row is one.
type endedRecorder struct {
	runs slurm.EndedRuns // stored, while slurmctld still lists them
}

// endedStore is the part of Store the recorder writes.
type endedStore interface {
	UpsertJobs(ctx context.Context, cluster string, jobs []planner.Job, end map[int64]time.Time) error
}

// record stores the snapshot's ended runs not stored yet that admits lets
// through (nil: all) and says how many it stored; a failed write is tried
// again next cycle (slurmctld lists the jobs for MinJobAge, 300 s by
// default).
func (r *endedRecorder) record(ctx context.Context, st endedStore, snap *planner.Snapshot, admits func(planner.Job) bool) (int, error) {
	jobs := r.runs.New(snap.Ended, admits)
	if len(jobs) == 0 {
		return 0, nil
	}
	ends := make(map[int64]time.Time, len(jobs))
	for _, j := range jobs {
		ends[j.ID] = j.EndTime
	}
	if err := st.UpsertJobs(ctx, snap.Cluster, jobs, ends); err != nil {
		return 0, err
	}
	r.runs.Mark(jobs)
	return len(jobs), nil
}

// recordEnded stores the snapshot's newly ended runs and says how many it
// stored (0 on a failed write: tried again next cycle).
func (d *Daemon) recordEnded(ctx context.Context, st Store, snap *planner.Snapshot) int {
	lctx, cancel := d.dbContext(ctx)
	// Only the runs of the jobs Strata plans (--only-partition, -user,
	// -job-name-prefix): a trial limited to some jobs learns from them alone.
	n, err := d.ended.record(lctx, st, snap, d.opts.Scope.admits)
	cancel()
	if err != nil {
		d.m.errors.WithLabelValues(string(StageHistory)).Inc()
		d.log.Warn().Err(err).Int("ended", len(snap.Ended)).
			Msg("ended runs not recorded: learning from them waits for the next cycle")
		return 0
	}
	if n > 0 {
		d.log.Debug().Int("recorded", n).Msg("ended runs recorded for learning")
	}
	return n
}
