package daemon

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// What the guards need from the audit trail: resizes and preemptions so
// far, and the job index they are checked against.

// history reads how often each pending job of the snapshot was resized
// already and each running job preempted in the last day, and reserves the
// cycle ID. Without a store (shadow mode, Postgres down) all are empty and
// the cycle goes on.
func (d *Daemon) history(ctx context.Context, st Store, s *planner.Snapshot) (map[int64]int, map[int64]int, int64, error) {
	if st == nil {
		return map[int64]int{}, map[int64]int{}, 0, nil
	}
	ids := map[int64]time.Time{}
	var running []int64
	for _, j := range s.Jobs {
		switch j.State {
		case planner.JobPending:
			ids[j.ID] = j.SubmitTime
		case planner.JobRunning:
			ids[j.ID] = j.SubmitTime // a restart at another size is a resize too
			running = append(running, j.ID)
		}
	}
	counts, err := st.RewriteCounts(ctx, s.Cluster, ids)
	if err != nil {
		return nil, nil, 0, err
	}
	preempts, err := st.PreemptionCounts(ctx, s.Cluster, decide.PreemptSince(s.Now), running)
	if err != nil {
		return nil, nil, 0, err
	}
	id, err := st.ReserveCycleID(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	return counts, preempts, id, nil
}

// preemptible is the planner's own rule of who may be signalled, and with
// which signal: the writer re-checks it on the job it re-reads.
func preemptible(j planner.Job) (string, bool) {
	ok, h := planner.Preemptible(&j)
	return h.Signal, ok
}
