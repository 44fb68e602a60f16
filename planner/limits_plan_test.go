package planner_test

import (
	"slices"
	"strings"
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

// TestShrinkKeepsAMarginUnderTheLimit (issue 30): smd shrinks a pending
// job below its request only when its modelled run on fewer GPUs is at
// most half its time limit (ShrinkMargin): a model 2-3× off must not end
// the honest job Strata shrank. With 1 of 4 GPUs free, a job asking for 4
// (gpus=1-4) starts now on 1 when its limit leaves the margin, and keeps
// its 4 when the 1-GPU run would take 3/4 of its limit (before: shrunk).
func TestShrinkKeepsAMarginUnderTheLimit(t *testing.T) {
	h := "strata: model=resnet50 batch=64 iters=3000 gpus=1-4"
	probe := plan(t, "smd", planner.Options{}, pt.Cluster("shrink", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Pending(1, 1, "strata: model=resnet50 batch=64 iters=3000").Build())
	one := probe[1].PredictedEnd.Sub(probe[1].PredictedStart) // the run on 1 GPU
	if one <= 0 {
		t.Fatal("no modelled run on one GPU")
	}
	for _, tc := range []struct {
		name  string
		limit time.Duration
		keep  bool // the site default: planner.Options.KeepRequest
		want  int
	}{
		{"room for the margin: shrunk", 3 * one, false, 1},
		{"the 1-GPU run at 3/4 of the limit: kept", one * 4 / 3, false, 4},
		{"the site keeps requests: kept with room", 3 * one, true, 4},
		{"the site keeps requests, no limit: kept", 0, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pt.Cluster("shrink", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
				Running(9, 3, "n1", t0.Add(-time.Minute), func(j *planner.Job) { j.TimeLimit = 1000 * time.Hour }).
				Pending(1, 4, h, func(j *planner.Job) { j.TimeLimit = tc.limit }).Build()
			for _, policy := range []string{"smd", "andreas"} {
				if got := plan(t, policy, planner.Options{KeepRequest: tc.keep}, s)[1].Workers; got != tc.want {
					t.Errorf("%s: workers %d, want %d", policy, got, tc.want)
				}
			}
		})
	}
}

// TestOverdueRunningJobsEndAtTheirLimit: a running job already past its
// predicted end is expected at its time limit (Slurm's own view: its
// backfill reserves by it), or, without a limit, to run as long again as
// it has; a job within its prediction ends by it. The 4-GPU job waiting
// for its GPUs is planned then, not within the next interval every cycle
// (which let narrower jobs fill the room a wide job waited for).
func TestOverdueRunningJobsEndAtTheirLimit(t *testing.T) {
	short := "strata: model=imagenet batch=3200 iters=300" // about 20 min on 4 t4
	for _, tc := range []struct {
		name       string
		ran        time.Duration
		limit      time.Duration
		wantEnd    time.Duration // after Now
		wantDetail string        // job 2's, with ReasonBehindOverdue
	}{
		{"overdue, 4 h limit: at its limit", time.Hour, 4 * time.Hour, 3 * time.Hour,
			"planned for when job 1 reaches its time limit 04:00:00 (2026-11-22T15:00): it has run 01:00:00, past its predicted end"},
		{"overdue, no limit: as long again", time.Hour, 0, time.Hour,
			"planned for when job 1 has run as long again (2026-11-22T13:00): it has run 01:00:00, past its predicted end, with no time limit"},
		{"overdue past its limit: within the interval", 5 * time.Hour, 4 * time.Hour, time.Minute,
			"planned for when job 1 ends: it has run 05:00:00, past its predicted end and its time limit 04:00:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pt.Cluster("overdue", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "t4").
				Running(1, 4, "n1", t0.Add(-tc.ran), func(j *planner.Job) { j.TimeLimit = tc.limit; j.Comment = short }).
				Pending(2, 4, "", func(j *planner.Job) { j.TimeLimit = time.Hour }).Build()
			for _, policy := range []string{"fifo", "smd"} {
				d := plan(t, policy, planner.Options{}, s)[2]
				if got := d.PredictedStart.Sub(t0); got != tc.wantEnd {
					t.Errorf("%s: job 2 planned to start in %v, want %v", policy, got, tc.wantEnd)
				}
				// strata explain says what the start waits for
				if !slices.Contains(d.Reasons, planner.ReasonBehindOverdue) || !strings.Contains(d.Detail, tc.wantDetail) {
					t.Errorf("%s: job 2's reasons %v, detail %q; want %s and %q", policy, d.Reasons, d.Detail, planner.ReasonBehindOverdue, tc.wantDetail)
				}
			}
		})
	}
	// within its prediction: its predicted end, as before
	s := pt.Cluster("overdue", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "t4").
		Running(1, 4, "n1", t0.Add(-5*time.Minute), func(j *planner.Job) { j.TimeLimit = 4 * time.Hour; j.Comment = short }).
		Pending(2, 4, "", func(j *planner.Job) { j.TimeLimit = time.Hour }).Build()
	d := plan(t, "smd", planner.Options{}, s)[2]
	if got := d.PredictedStart.Sub(t0); got < 10*time.Minute || got > 20*time.Minute {
		t.Errorf("job 2 planned to start in %v, want when job 1's modelled 20 min end (in about 15)", got)
	}
	if slices.Contains(d.Reasons, planner.ReasonBehindOverdue) {
		t.Errorf("job 2 behind a job within its prediction: reasons %v, want no %s", d.Reasons, planner.ReasonBehindOverdue)
	}
}
