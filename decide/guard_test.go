package decide

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func TestPlan(t *testing.T) {
	pending := func(id int64, gpus int, prio int64, comment, admin string) *planner.Job {
		return &planner.Job{ID: id, State: planner.JobPending, GPUsPerNode: gpus, Nodes: 1, Priority: prio,
			Comment: comment, AdminComment: admin}
	}
	update := func(id int64, w, gpn int, prio int64) planner.Decision {
		return planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: w, GPUsPerNode: gpn, NodeCount: 1, Priority: prio}
	}
	deferred := func(d planner.Decision, nb time.Time) planner.Decision { d.NotBefore = nb; return d }
	moved := func(d planner.Decision, p string) planner.Decision { d.Partition = p; return d }
	inParts := func(j *planner.Job, p string) *planner.Job { j.Partition = p; return j }
	withDefer := func(j *planner.Job, t time.Time) *planner.Job { j.DeferredUntil = t; return j }
	o := Options{MaxPerCycle: 10, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1, MaxDefer: 30 * time.Minute, DeferSlack: 2 * time.Minute}
	type verdict struct {
		Write     bool
		Outcome   Outcome
		Gd        Name
		GPN       int
		Prio      int64
		NotBefore time.Time
	}
	min := func(m int) time.Time { return now.Add(time.Duration(m) * time.Minute) }
	cur := "strata: workers=2 ps=0 rank=3 cycle=7"
	tests := []struct {
		name     string
		d        planner.Decision
		job      *planner.Job
		rewrites int
		opts     *Options
		want     verdict
	}{
		{"new shape and priority are written", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0, nil,
			verdict{Write: true, GPN: 4, Prio: 100500}},
		{"keep is not written", planner.Decision{JobID: 1, Action: planner.ActionKeep}, pending(1, 2, 1000, "", ""), 0, nil,
			verdict{Outcome: Kept}},
		{"running job is never written", update(1, 4, 4, 100500), &planner.Job{ID: 1, State: planner.JobRunning, GPUsPerNode: 2, Nodes: 1}, 0, nil,
			verdict{Outcome: Held, Gd: NotPending, GPN: 4, Prio: 100500}},
		{"vanished job is not written", update(1, 4, 4, 100500), nil, 0, nil,
			verdict{Outcome: Held, Gd: NotPending, GPN: 4, Prio: 100500}},
		{"rewrite=no is respected even if the planner proposes", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: model=resnet50 rewrite=no", ""), 0, nil,
			verdict{Outcome: Held, Gd: OptOut, GPN: 4, Prio: 100500}},
		{"an invalid hint is an opt-out too", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: modle=resnet50", ""), 0, nil,
			verdict{Outcome: Held, Gd: OptOut, GPN: 4, Prio: 100500}},
		{"held by the user", update(1, 4, 4, 100500),
			&planner.Job{ID: 1, State: planner.JobPending, Reason: "JobHeldUser", GPUsPerNode: 2, Nodes: 1, Comment: "strata: gpus=1-4"}, 0, nil,
			verdict{Outcome: Held, Gd: JobHeld, GPN: 4, Prio: 100500}},
		{"held by the requeue limit", update(1, 4, 4, 100500),
			&planner.Job{ID: 1, State: planner.JobPending, Reason: "JobHoldMaxRequeue", Priority: 0, GPUsPerNode: 2, Nodes: 1}, 0, nil,
			verdict{Outcome: Held, Gd: JobHeld, GPN: 4, Prio: 100500}},
		{"priority 0 is held whatever the reason", update(1, 4, 4, 100500),
			&planner.Job{ID: 1, State: planner.JobPending, Reason: "BadConstraints", Priority: 0, GPUsPerNode: 2, Nodes: 1}, 0, nil,
			verdict{Outcome: Held, Gd: JobHeld, GPN: 4, Prio: 100500}},
		{"small priority change is trimmed, GPU change written", update(1, 4, 4, 1050), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0, nil,
			verdict{Write: true, Gd: HystPriority, GPN: 4}},
		{"small priority change alone with current comment: unchanged", update(1, 2, 2, 1050), pending(1, 2, 1000, "", cur), 0, nil,
			verdict{Outcome: Unchanged, Gd: HystPriority}},
		{"only the rank moved: unchanged", update(1, 2, 2, 1000), pending(1, 2, 1000, "", "strata: workers=2 ps=0 rank=9 cycle=7"), 0, nil,
			verdict{Outcome: Unchanged}},
		{"same values but no admin comment yet: written", update(1, 2, 2, 1000), pending(1, 2, 1000, "", ""), 0, nil,
			verdict{Write: true}},
		{"GPU change below the threshold is trimmed", update(1, 3, 3, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0,
			&Options{MaxPerCycle: 10, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 2},
			verdict{Write: true, Gd: HystGPUs, Prio: 100500}},
		{"a per-task request keeps its GPUs", update(1, 4, 4, 1000),
			&planner.Job{ID: 1, State: planner.JobPending, GPUsPerTask: 1, Tasks: 2, Nodes: 1, Priority: 1000, AdminComment: "strata: workers=4 ps=0 rank=1 cycle=1"}, 0, nil,
			verdict{Outcome: Unchanged}},
		{"job cap reached: the priority is still written, not the size", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 3, nil,
			verdict{Write: true, Gd: JobCap, Prio: 100500}},
		{"job cap reached and nothing else to write: held", update(1, 4, 4, 1000), pending(1, 2, 1000, "strata: gpus=1-4", "strata: workers=2 ps=0 rank=1 cycle=1"), 3, nil,
			verdict{Outcome: Held, Gd: JobCap}},
		{"zero per-cycle limit holds everything", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0,
			&Options{MaxPerCycle: 0, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1},
			verdict{Outcome: Held, Gd: CycleLimit, GPN: 4, Prio: 100500}},
		// Partitions (the top tier moves a job among those it lists).
		{"a move to another partition is written", moved(update(1, 2, 2, 1000), "gpub"), inParts(pending(1, 2, 1000, "", cur), "gpua,gpub"), 0, nil,
			verdict{Write: true}},
		{"already in the chosen partition: unchanged", moved(update(1, 2, 2, 1000), "gpub"), inParts(pending(1, 2, 1000, "", cur), "gpub"), 0, nil,
			verdict{Outcome: Unchanged}},
		// Begin times (Decision.NotBefore against Job.DeferredUntil).
		{"a deferral is written", deferred(update(1, 2, 2, 1000), min(10)), pending(1, 2, 1000, "", cur), 0, nil,
			verdict{Write: true, NotBefore: min(10)}},
		{"a deferral is capped at MaxDefer", deferred(update(1, 2, 2, 1000), min(600)), pending(1, 2, 1000, "", cur), 0, nil,
			verdict{Write: true, NotBefore: min(30)}},
		{"a deferral in effect close to the plan's is left", deferred(update(1, 2, 2, 1000), min(11)), withDefer(pending(1, 2, 1000, "", cur), min(10)), 0, nil,
			verdict{Outcome: Unchanged, NotBefore: min(10)}},
		{"a deferral not running out soon is left", deferred(update(1, 2, 2, 1000), min(60)), withDefer(pending(1, 2, 1000, "", cur), min(25)), 0, nil,
			verdict{Outcome: Unchanged, NotBefore: min(25)}},
		{"a deferral running out is extended", deferred(update(1, 2, 2, 1000), min(60)), withDefer(pending(1, 2, 1000, "", cur), min(1)), 0, nil,
			verdict{Write: true, NotBefore: min(30)}},
		{"a deferral longer than the plan's is shortened", deferred(update(1, 2, 2, 1000), min(5)), withDefer(pending(1, 2, 1000, "", cur), min(20)), 0, nil,
			verdict{Write: true, NotBefore: min(5)}},
		{"a deferral no longer wanted is released", update(1, 2, 2, 1000), withDefer(pending(1, 2, 1000, "", cur), min(20)), 0, nil,
			verdict{Write: true}},
		{"a deferral that ran out needs no release", update(1, 2, 2, 1000), withDefer(pending(1, 2, 1000, "", cur), min(-1)), 0, nil,
			verdict{Outcome: Unchanged}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oo := o
			if tt.opts != nil {
				oo = *tt.opts
			}
			jobs := map[int64]*planner.Job{}
			if tt.job != nil {
				jobs[tt.job.ID] = tt.job
			}
			got := Plan(planner.Plan{Decisions: []planner.Decision{tt.d}}, jobs, map[int64]int{1: tt.rewrites}, nil, now, oo)
			g := got[0]
			v := verdict{Write: g.Write, Outcome: g.Outcome, Gd: g.Guard, GPN: g.Send.GPUsPerNode, Prio: g.Send.Priority, NotBefore: g.Send.NotBefore}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanCycleLimitKeepsBestRanks(t *testing.T) {
	var p planner.Plan
	jobs := map[int64]*planner.Job{}
	for id := int64(1); id <= 5; id++ {
		p.Decisions = append(p.Decisions, planner.Decision{JobID: id, Action: planner.ActionUpdate, Rank: int(id),
			Workers: 2, GPUsPerNode: 2, NodeCount: 1, Priority: 100000 - id*1000})
		jobs[id] = &planner.Job{ID: id, State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Priority: 1, Comment: "strata: gpus=1-2"}
	}
	got := Plan(p, jobs, nil, nil, now, Options{MaxPerCycle: 2, MaxPerJob: 3, PriorityHysteresis: 1, MinGPUChange: 1})
	var written, held []int64
	for _, g := range got {
		if g.Write {
			written = append(written, g.Send.JobID)
		} else if g.Guard == CycleLimit {
			held = append(held, g.Send.JobID)
		}
	}
	if diff := cmp.Diff([]int64{1, 2}, written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{3, 4, 5}, held); diff != "" {
		t.Errorf("held by the cycle limit (-want +got):\n%s", diff)
	}
}

// A preempt decision is sent (the job signalled) only for a preemptible
// running job not signalled yet, past its minimum run time and daily cap;
// a restart at another size only when that size could be written.
func TestPlanPreempt(t *testing.T) {
	running := func(gpus int, ran time.Duration, comment string) *planner.Job {
		return &planner.Job{ID: 1, State: planner.JobRunning, GPUsPerNode: gpus, Nodes: 1, Requeue: true,
			StartTime: now.Add(-ran), Comment: comment}
	}
	opted := "strata: gpus=1-8 preempt=yes"
	edit := func(j *planner.Job, f func(*planner.Job)) *planner.Job { f(j); return j }
	stop := planner.Decision{JobID: 1, Action: planner.ActionPreempt, Reasons: []planner.Reason{planner.ReasonPreempted}}
	resize := func(w int) planner.Decision {
		return planner.Decision{JobID: 1, Action: planner.ActionPreempt, Workers: w, GPUsPerNode: w, NodeCount: 1,
			Reasons: []planner.Reason{planner.ReasonResizedRestart}}
	}
	o := Defaults()
	type verdict struct {
		Write   bool
		Outcome Outcome
		Gd      Name
		Workers int
	}
	tests := []struct {
		name               string
		d                  planner.Decision
		job                *planner.Job
		resized, preempted int
		want               verdict
	}{
		{"preemptible job is signalled", stop, running(4, time.Hour, opted), 0, 0, verdict{Write: true}},
		{"a restart at another size is sent with it", resize(8), running(4, time.Hour, opted), 0, 1, verdict{Write: true, Workers: 8}},
		{"a restart at the same size carries no size", resize(4), running(4, time.Hour, opted), 0, 0, verdict{Write: true}},
		{"no opt-in: never signalled", stop, running(4, time.Hour, "strata: gpus=1-8"), 0, 0, verdict{Outcome: Held, Gd: NotPreemptible}},
		{"not requeueable: never signalled", stop, edit(running(4, time.Hour, opted), func(j *planner.Job) { j.Requeue = false }), 0, 0,
			verdict{Outcome: Held, Gd: NotPreemptible}},
		{"non-cooperative: never again", stop, edit(running(4, time.Hour, opted), func(j *planner.Job) { j.NonCooperative = true }), 0, 0,
			verdict{Outcome: Held, Gd: NotPreemptible}},
		{"pending job: nothing to preempt", stop, edit(running(4, time.Hour, opted), func(j *planner.Job) { j.State = planner.JobPending }), 0, 0,
			verdict{Outcome: Held, Gd: NotRunning}},
		{"gone", stop, nil, 0, 0, verdict{Outcome: Held, Gd: NotRunning}},
		{"signalled already", stop, edit(running(4, time.Hour, opted), func(j *planner.Job) { j.Signalled = now.Add(-time.Minute) }), 0, 0,
			verdict{Outcome: Held, Gd: AlreadySignalled}},
		{"ran less than the minimum", stop, running(4, 9*time.Minute, opted), 0, 0, verdict{Outcome: Held, Gd: MinRun}},
		{"preempted twice today", stop, running(4, time.Hour, opted), 0, 2, verdict{Outcome: Held, Gd: PreemptCap}},
		{"its size cannot change any more: the whole preempt is held", resize(8), running(4, time.Hour, opted), 3, 0,
			verdict{Outcome: Held, Gd: JobCap, Workers: 8}},
		{"too much disturbed at once", stop, running(32, 3*time.Hour, opted), 0, 0, verdict{Outcome: Held, Gd: DisturbCap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs := map[int64]*planner.Job{}
			if tt.job != nil {
				jobs[1] = tt.job
			}
			g := Plan(planner.Plan{Decisions: []planner.Decision{tt.d}}, jobs, map[int64]int{1: tt.resized}, map[int64]int{1: tt.preempted}, now, o)[0]
			got := verdict{g.Write, g.Outcome, g.Guard, g.Send.Workers}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if g.Write && (g.Send.Action != planner.ActionPreempt || g.Resizes()) {
				t.Errorf("a signal is sent as %s (Resizes %v)", g.Send.Action, g.Resizes())
			}
		})
	}
}

// The disturbed GPU-hours of a cycle's preemptions are capped in plan
// order: 3 jobs of 16 GPUs that ran 2 h each disturb 32 GPU-hours each;
// under a 64 GPU-hour cap the first two are signalled.
func TestPlanDisturbedCap(t *testing.T) {
	var p planner.Plan
	jobs := map[int64]*planner.Job{}
	for id := int64(1); id <= 3; id++ {
		p.Decisions = append(p.Decisions, planner.Decision{JobID: id, Action: planner.ActionPreempt})
		jobs[id] = &planner.Job{ID: id, State: planner.JobRunning, GPUsPerNode: 16, Nodes: 1, Requeue: true,
			StartTime: now.Add(-2 * time.Hour), Comment: "strata: preempt=yes"}
	}
	if h := planner.DisturbedGPUHours(jobs[1], now); h != 32 {
		t.Errorf("DisturbedGPUHours = %v, want 32", h)
	}
	var got []Name
	for _, v := range Plan(p, jobs, nil, nil, now, Defaults()) {
		got = append(got, v.Guard)
	}
	if diff := cmp.Diff([]Name{"", "", DisturbCap}, got); diff != "" {
		t.Errorf("guards (-want +got):\n%s", diff)
	}
}

func TestGuardsDescribed(t *testing.T) {
	for _, n := range Names() {
		if n.Describe() == "" {
			t.Errorf("guard %q has no description", n)
		}
	}
}

// Every skip the writer finds on re-reading a job is named by the guard
// that checks the same fact in the snapshot (one spelling per fact in the
// audit trail's guard column); writes that were tried name no guard.
func TestSkipsNamedByTheirGuard(t *testing.T) {
	want := map[Outcome]Name{SkippedHeld: JobHeld, SkippedNotPending: NotPending, SkippedOptOut: OptOut,
		SkippedNotRunning: NotRunning}
	for _, o := range Outcomes() {
		g := GuardOf(o)
		if g != want[o] {
			t.Errorf("GuardOf(%s) = %q, want %q", o, g, want[o])
		}
		if g != "" && !slices.Contains(Names(), g) {
			t.Errorf("GuardOf(%s) = %q: not a guard", o, g)
		}
	}
}

func TestAdminCommentRoundTrip(t *testing.T) {
	tests := []struct {
		in     string
		want   Written
		wantOK bool
	}{
		{"strata: workers=4 ps=1 rank=2 cycle=17", Written{Workers: 4, PS: 1, Rank: 2, Cycle: 17}, true},
		{"site note; strata: workers=2 ps=0 rank=1 cycle=3", Written{Workers: 2, Rank: 1, Cycle: 3}, true},
		{"strata: workers=2 ps=0 rank=1 cycle=3 defer=1795521785", Written{Workers: 2, Rank: 1, Cycle: 3, Defer: time.Unix(1795521785, 0).UTC()}, true},
		{"strata: workers=2 ps=0 rank=1 cycle=3 sig=1795521785 noncoop=1",
			Written{Workers: 2, Rank: 1, Cycle: 3, Signalled: time.Unix(1795521785, 0).UTC(), NonCooperative: true}, true},
		{"strata: workers=2 ps=0 rank=1 cycle=3 Other=1", Written{Workers: 2, Rank: 1, Cycle: 3}, true},
		{"strata: workers=4 ps=0 rank=1 cycle=3 parts=gpua,gpu-b_2.x", Written{Workers: 4, Rank: 1, Cycle: 3, Parts: []string{"gpua", "gpu-b_2.x"}}, true},
		{"strata: workers=4 ps=0 rank=1 cycle=3 parts=gpua,,b", Written{}, false},
		{"strata: workers=4 ps=0 rank=1 cycle=3 parts=a;b", Written{}, false},
		{"", Written{}, false},
		{`{"jobstats": 1}`, Written{}, false},
		{"strata: workers=x", Written{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseAdminComment(tt.in)
		if ok != tt.wantOK || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseAdminComment(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
		if ok {
			if back, _ := ParseAdminComment(MergeAdminComment("jobstats=1", got)); !cmp.Equal(back, got) {
				t.Errorf("round trip of %+v through the merged comment gave %+v", got, back)
			}
		}
	}
	if got := MergeAdminComment("site; strata: workers=1 ps=0 rank=1 cycle=1", Written{Workers: 2, Cycle: 2}); got != "site; strata: workers=2 ps=0 rank=0 cycle=2" {
		t.Errorf("merge replaced the segment as %q", got)
	}
}

func TestMergeAdminCommentKeepsOtherTools(t *testing.T) {
	w := Written{Workers: 2, Rank: 1, Cycle: 7}
	seg := "strata: workers=2 ps=0 rank=1 cycle=7"
	tests := []struct{ cur, want string }{
		{"", seg},
		{"strata: workers=4 ps=1 rank=3 cycle=6", seg},
		{`{"jobstats":1}`, `{"jobstats":1}; ` + seg},
		{`site=xyz; strata: workers=4 ps=1 rank=3 cycle=6`, `site=xyz; ` + seg},
		{"site=xyz;", "site=xyz; " + seg},
	}
	for _, tt := range tests {
		if got := MergeAdminComment(tt.cur, w); got != tt.want {
			t.Errorf("MergeAdminComment(%q) = %q, want %q", tt.cur, got, tt.want)
		}
	}
}
