package daemon

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// What the guards need from the audit trail: resizes and preemptions so
// far, and the job index they are checked against.

// history reads what the guards count from the audit trail — how often
// each pending or running job of the snapshot was resized, written to and
// failed, and each running job preempted in the last day — and reserves
// the cycle ID. Without a store (shadow mode, Postgres down) the counts
// are empty and the cycle goes on.
func (d *Daemon) history(ctx context.Context, st Store, s *planner.Snapshot) (decide.History, int64, error) {
	if st == nil {
		return decide.History{}, 0, nil
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
	var h decide.History
	var err error
	if h.Resizes, err = st.RewriteCounts(ctx, s.Cluster, ids); err != nil {
		return decide.History{}, 0, err
	}
	if h.Writes, h.Failed, err = st.WriteCounts(ctx, s.Cluster, ids); err != nil {
		return decide.History{}, 0, err
	}
	if h.Preempts, err = st.PreemptionCounts(ctx, s.Cluster, decide.PreemptSince(s.Now), running); err != nil {
		return decide.History{}, 0, err
	}
	id, err := st.ReserveCycleID(ctx)
	if err != nil {
		return decide.History{}, 0, err
	}
	return h, id, nil
}

// preemptible is the planner's own rule of who may be signalled, and with
// which signal: the writer re-checks it on the job it re-reads.
func preemptible(j planner.Job) (string, bool) {
	ok, h := planner.Preemptible(&j)
	return h.Signal, ok
}
