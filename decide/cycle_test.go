package decide_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func TestAnnotate(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := &planner.Snapshot{Now: now, Jobs: []planner.Job{
		{ID: 1, State: planner.JobPending},
		{ID: 2, State: planner.JobPending},
		{ID: 3, State: planner.JobRunning},
		{ID: 4, State: planner.JobRunning},
		{ID: 5, State: planner.JobCompleted},
		{ID: 6, State: planner.JobPending, User: "liar"},
		{ID: 7, State: planner.JobPending, User: "slow"},
	}}
	h := decide.History{Resizes: map[int64]int{1: 3, 3: 3, 5: 9}, Preempts: map[int64]int{1: 1, 4: 2},
		Claims: map[string]planner.Claim{"liar": {Distrust: true}, "slow": {Factor: 2}}}
	decide.Annotate(s, h, decide.Options{MaxPerJob: 3})
	type row struct {
		ID            int64
		Locked        bool
		PreemptsToday int
	}
	var got []row
	for _, j := range s.Jobs {
		got = append(got, row{j.ID, j.SizeLocked, j.PreemptsToday})
	}
	want := []row{
		{1, true, 0}, // at the cap; a pending job's preemptions are not the planner's concern
		{2, false, 0},
		{3, true, 0}, // running at the cap: its restart size is locked too (the guards hold such a preempt)
		{4, false, 2},
		{5, false, 0},
		{6, true, 0},  // a distrusted claim is timed by the limit at every size: it keeps its request
		{7, false, 0}, // a corrected claim still sizes the job
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
}

// TestPlannerOptions: the guards' zeros mean none, the planner's mean its
// default; the translation keeps the plan from proposing what the guards
// refuse (issue 25: --max-disturbed-gpu-hours 0 planned with the default 64
// and proposed preemptions the guard then refused).
func TestPlannerOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    func(*decide.Options)
		want [3]float64 // MinRun (minutes), MaxPreemptPerDay, MaxDisturbed
	}{
		{"defaults", func(*decide.Options) {}, [3]float64{10, 2, 64}},
		{"no disturbance allowed", func(o *decide.Options) { o.MaxDisturbedGPUHours = 0 }, [3]float64{10, -1, 0}},
		{"no preemption per day", func(o *decide.Options) { o.MaxPreemptPerDay = 0 }, [3]float64{10, -1, 64}},
		{"no minimum run", func(o *decide.Options) { o.MinRunBeforePreempt = 0 }, [3]float64{-1.0 / 60e9, 2, 64}},
		{"site values", func(o *decide.Options) {
			o.MinRunBeforePreempt, o.MaxPreemptPerDay, o.MaxDisturbedGPUHours = time.Hour, 5, 8
		}, [3]float64{60, 5, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := decide.Defaults()
			tc.g(&g)
			po := decide.PlannerOptions(planner.Options{}, g)
			got := [3]float64{po.MinRunBeforePreempt.Minutes(), float64(po.MaxPreemptPerDay), po.MaxDisturbedGPUHours}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("planner preemption limits (-want +got):\n%s", d)
			}
		})
	}
}

// fixedPolicy plans a fixed answer and records the snapshot it was given.
type fixedPolicy struct {
	plan planner.Plan
	seen *planner.Snapshot
}

func (f *fixedPolicy) Plan(_ context.Context, s *planner.Snapshot) (planner.Plan, error) {
	f.seen = s
	return f.plan, nil
}

// TestDecideAnnotatesPlansAndGuards: the policy sees the annotated
// snapshot, and the verdicts are the guards' on its plan.
func TestDecideAnnotatesPlansAndGuards(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := &planner.Snapshot{Now: now, Jobs: []planner.Job{
		{ID: 1, State: planner.JobPending, Priority: 100, GPUsPerNode: 1, Nodes: 1},
		{ID: 2, State: planner.JobPending, Priority: 100, GPUsPerNode: 1, Nodes: 1},
	}}
	pol := &fixedPolicy{plan: planner.Plan{Decisions: []planner.Decision{
		{JobID: 1, Action: planner.ActionUpdate, Priority: 5000, Workers: 2, GPUsPerNode: 2, NodeCount: 1},
		{JobID: 2, Action: planner.ActionUpdate, Priority: 4000, Workers: 2, GPUsPerNode: 2, NodeCount: 1},
	}}}
	o := decide.Defaults()
	res, err := decide.Decide(context.Background(), pol, s, decide.History{Resizes: map[int64]int{2: o.MaxPerJob}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if pol.seen.Jobs[1].SizeLocked != true || pol.seen.Jobs[0].SizeLocked {
		t.Errorf("the policy saw SizeLocked %v, %v; want false, true", pol.seen.Jobs[0].SizeLocked, pol.seen.Jobs[1].SizeLocked)
	}
	type row struct {
		ID    int64
		Write bool
		GPUs  int
		Guard decide.Name
	}
	var got []row
	for _, v := range res.Verdicts {
		got = append(got, row{v.Send.JobID, v.Write, v.Send.GPUsPerNode, v.Guard})
	}
	want := []row{{1, true, 2, ""}, {2, true, 0, decide.JobCap}} // job 2 keeps its size, its priority is written
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if n := len(res.Send()); n != 2 {
		t.Errorf("Send() = %d decisions, want 2", n)
	}
}
