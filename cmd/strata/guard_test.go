package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

func TestGuardPlan(t *testing.T) {
	pending := func(id int64, gpus int, prio int64, comment, admin string) *planner.Job {
		return &planner.Job{ID: id, State: planner.JobPending, GPUsPerNode: gpus, Nodes: 1, Priority: prio,
			Comment: comment, AdminComment: admin}
	}
	update := func(id int64, w, gpn int, prio int64) planner.Decision {
		return planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: w, GPUsPerNode: gpn, NodeCount: 1, Priority: prio}
	}
	o := guardOptions{MaxPerCycle: 10, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1}
	type verdict struct {
		Write       bool
		Outcome, Gd string
		GPN         int
		Prio        int64
	}
	tests := []struct {
		name     string
		d        planner.Decision
		job      *planner.Job
		rewrites int
		opts     *guardOptions
		want     verdict
	}{
		{"new shape and priority are written", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0, nil,
			verdict{Write: true, GPN: 4, Prio: 100500}},
		{"keep is not written", planner.Decision{JobID: 1, Action: planner.ActionKeep}, pending(1, 2, 1000, "", ""), 0, nil,
			verdict{Outcome: db.OutcomeKept}},
		{"running job is never written", update(1, 4, 4, 100500), &planner.Job{ID: 1, State: planner.JobRunning, GPUsPerNode: 2, Nodes: 1}, 0, nil,
			verdict{Outcome: db.OutcomeHeld, Gd: guardNotPending, GPN: 4, Prio: 100500}},
		{"vanished job is not written", update(1, 4, 4, 100500), nil, 0, nil,
			verdict{Outcome: db.OutcomeHeld, Gd: guardNotPending, GPN: 4, Prio: 100500}},
		{"rewrite=no is respected even if the planner proposes", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: model=resnet50 rewrite=no", ""), 0, nil,
			verdict{Outcome: db.OutcomeHeld, Gd: guardOptOut, GPN: 4, Prio: 100500}},
		{"held job is never written (a priority would release it)", update(1, 4, 4, 100500),
			&planner.Job{ID: 1, State: planner.JobPending, Reason: "JobHeldUser", GPUsPerNode: 2, Nodes: 1, Comment: "strata: gpus=1-4"}, 0, nil,
			verdict{Outcome: db.OutcomeHeld, Gd: guardHeld, GPN: 4, Prio: 100500}},
		{"small priority change is trimmed, GPU change written", update(1, 4, 4, 1050), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0, nil,
			verdict{Write: true, Gd: guardHystPriority, GPN: 4}},
		{"small priority change alone with current comment: unchanged", update(1, 2, 2, 1050), pending(1, 2, 1000, "", "strata: workers=2 ps=0 rank=3 cycle=7"), 0, nil,
			verdict{Outcome: "unchanged", Gd: guardHystPriority}},
		{"only the rank moved: unchanged", update(1, 2, 2, 1000), pending(1, 2, 1000, "", "strata: workers=2 ps=0 rank=9 cycle=7"), 0, nil,
			verdict{Outcome: "unchanged"}},
		{"same values but no admin comment yet: written", update(1, 2, 2, 1000), pending(1, 2, 1000, "", ""), 0, nil,
			verdict{Write: true}},
		{"GPU change below the threshold is trimmed", update(1, 3, 3, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0,
			&guardOptions{MaxPerCycle: 10, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 2},
			verdict{Write: true, Gd: guardHystGPUs, Prio: 100500}},
		{"job cap reached", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 3, nil,
			verdict{Outcome: db.OutcomeHeld, Gd: guardJobCap, GPN: 4, Prio: 100500}},
		{"zero per-cycle limit holds everything", update(1, 4, 4, 100500), pending(1, 2, 1000, "strata: gpus=1-4", ""), 0,
			&guardOptions{MaxPerCycle: 0, MaxPerJob: 3, PriorityHysteresis: 100, MinGPUChange: 1},
			verdict{Outcome: db.OutcomeHeld, Gd: guardCycleLimit, GPN: 4, Prio: 100500}},
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
			got := guardPlan(planner.Plan{Decisions: []planner.Decision{tt.d}}, jobs, map[int64]int{1: tt.rewrites}, oo)
			g := got[0]
			v := verdict{Write: g.Write, Outcome: g.Outcome, Gd: g.Guard, GPN: g.Send.GPUsPerNode, Prio: g.Send.Priority}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGuardPlanCycleLimitKeepsBestRanks(t *testing.T) {
	var p planner.Plan
	jobs := map[int64]*planner.Job{}
	for id := int64(1); id <= 5; id++ {
		p.Decisions = append(p.Decisions, planner.Decision{JobID: id, Action: planner.ActionUpdate, Rank: int(id),
			Workers: 2, GPUsPerNode: 2, NodeCount: 1, Priority: 100000 - id*1000})
		jobs[id] = &planner.Job{ID: id, State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Comment: "strata: gpus=1-2"}
	}
	got := guardPlan(p, jobs, nil, guardOptions{MaxPerCycle: 2, MaxPerJob: 3, PriorityHysteresis: 1, MinGPUChange: 1})
	var written, held []int64
	for _, g := range got {
		if g.Write {
			written = append(written, g.Send.JobID)
		} else if g.Guard == guardCycleLimit {
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

func TestParseAdminComment(t *testing.T) {
	tests := []struct {
		in     string
		want   adminDecision
		wantOK bool
	}{
		{"strata: workers=4 ps=1 rank=2 cycle=17", adminDecision{4, 1, 2, 17}, true},
		{"site note; strata: workers=2 ps=0 rank=1 cycle=3", adminDecision{2, 0, 1, 3}, true},
		{"", adminDecision{}, false},
		{`{"jobstats": 1}`, adminDecision{}, false},
		{"strata: workers=x", adminDecision{}, false},
	}
	for _, tt := range tests {
		got, ok := parseAdminComment(tt.in)
		if ok != tt.wantOK || got != tt.want {
			t.Errorf("parseAdminComment(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
