package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Each ended run slurmctld lists is stored once, a failed write is tried
// again next cycle, and a run slurmctld forgot is forgotten here too.
func TestEndedRunsRecordedOnce(t *testing.T) {
	end := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	a := planner.Job{ID: 1, State: planner.JobCompleted, StartTime: end.Add(-time.Hour), EndTime: end}
	b := planner.Job{ID: 2, State: "TIMEOUT", StartTime: end.Add(-time.Hour), EndTime: end.Add(time.Minute)}
	pg := newFakePostgres()
	var r endedRecorder
	steps := []struct {
		name  string
		ended []planner.Job
		down  bool
		want  int // stored this cycle
		total int // stored so far
	}{
		{"first cycle: both", []planner.Job{a, b}, false, 2, 2},
		{"next cycle: nothing new", []planner.Job{a, b}, false, 0, 2},
		{"slurmctld forgot a", []planner.Job{b}, false, 0, 2},
		{"database down: tried again", []planner.Job{a, b}, true, 0, 2},
		{"database back: a again (forgotten here)", []planner.Job{a, b}, false, 1, 3},
	}
	for _, st := range steps {
		pg.down = st.down
		n, err := r.record(context.Background(), pg, &planner.Snapshot{Cluster: "c", Ended: st.ended}, nil)
		if (err != nil) != st.down || n != st.want || len(pg.ended) != st.total {
			t.Errorf("%s: stored %d (%v), %d in all; want %d, %d", st.name, n, err, len(pg.ended), st.want, st.total)
		}
	}
}

// A daemon limited to some jobs (its scope: a trial, or a test sharing a
// cluster) learns from their runs alone: the blockers of one end-to-end
// test were timed by the history of another test's jobs that had just
// ended (same user, similar names).
func TestEndedRunsInScopeOnly(t *testing.T) {
	end := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	ended := []planner.Job{{ID: 1, Name: "mine-a", EndTime: end}, {ID: 2, Name: "other-b", EndTime: end}}
	pg := newFakePostgres()
	var r endedRecorder
	scope := Scope{NamePrefix: "mine-"}
	if n, err := r.record(context.Background(), pg, &planner.Snapshot{Ended: ended}, scope.admits); err != nil || n != 1 ||
		len(pg.ended) != 1 || pg.ended[0].ID != 1 {
		t.Errorf("stored %d (%v): %+v; want job 1 only", n, err, pg.ended)
	}
}
