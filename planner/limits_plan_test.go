package planner_test

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// TestPlansRespectTimeLimits (issue 30.3): no job is planned to run past
// its time limit. A running job modelled at days with a 1-hour limit ends
// in the plan when Slurm ends it, so the 4-GPU job queued behind it starts
// then (before, 17 h later on the test cluster); a pending job whose every
// size outruns its limit is planned at the fastest size, ending at its
// limit. Every policy.
func TestPlansRespectTimeLimits(t *testing.T) {
	limit := func(d time.Duration) func(*planner.Job) { return func(j *planner.Job) { j.TimeLimit = d } }
	long := "strata: model=resnet50 batch=64 epochs=90 samples=1281167" // days on 4 GPUs
	started := t0.Add(-10 * time.Minute)
	s := pt.Cluster("limits", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Running(1, 4, "n1", started, func(j *planner.Job) { j.TimeLimit = time.Hour; j.Comment = long }).
		Pending(2, 4, long+" gpus=2-4", limit(2*time.Hour)).
		Pending(3, 4, "", limit(30*time.Minute)).Build()
	for _, policy := range []string{"fifo", "sjf", "smd", "tiresias", "edf", "andreas"} {
		t.Run(policy, func(t *testing.T) {
			got := plan(t, policy, planner.Options{}, s)
			var firstStart time.Time
			for _, id := range []int64{2, 3} {
				d := got[id]
				if d.PredictedStart.IsZero() {
					t.Fatalf("job %d: no planned start", id)
				}
				if run := d.PredictedEnd.Sub(d.PredictedStart); run > s.Jobs[id-1].TimeLimit {
					t.Errorf("job %d planned to run %v, past its limit %v", id, run, s.Jobs[id-1].TimeLimit)
				}
				if firstStart.IsZero() || d.PredictedStart.Before(firstStart) {
					firstStart = d.PredictedStart
				}
			}
			if end := started.Add(time.Hour); firstStart.After(end.Add(2 * time.Minute)) {
				t.Errorf("first pending start %v, want by the running job's limit %v", firstStart, end)
			}
		})
	}
}
