package slurm

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// TestRestoreFor: what restore puts back from the admin comment and the
// audit trail, what it leaves (and says so), and which changes since
// Strata's last write leave the job alone (issue 30.4).
func TestRestoreFor(t *testing.T) {
	now := time.Unix(1795800000, 0).UTC()
	deferred := now.Add(time.Hour)
	w := decide.Written{Workers: 2, Rank: 1, Cycle: 3, Limit: 2 * time.Hour, Defer: deferred}
	// The job as Strata left it: 2 of the user's 4 GPUs, 30 min of 2 h,
	// priority 88888, deferred an hour.
	job := planner.Job{ID: 1, State: planner.JobPending, SubmitTime: now.Add(-time.Hour), TimeLimit: 30 * time.Minute,
		Priority: 88888, GPUsPerNode: 2, Nodes: 1, TRESPerNode: "gres/gpu:2", CPUsPerTask: 4, Tasks: 1, MemoryPerNodeMB: 8000,
		DeferredUntil: deferred, AdminComment: "jobstats: x; " + w.String()}
	body := `{"priority":{"set":true,"number":88888},"tres_per_node":"gres/gpu:2","time_limit":{"set":true,"number":30}}`
	trail := &Trail{FirstGPUs: 4, Applied: []string{body}}
	s := func(v string) *string { return &v }
	full := JobUpdate{ResetPriority: true, TimeLimitMinutes: 120, TresPerNode: s("gres/gpu:4"), CPUsPerTask: 8, MinimumCPUs: 8,
		MinimumCPUsPerNode: 8, MemoryPerNodeMB: 16000, BeginTime: now.Add(-time.Hour).Unix(), AdminComment: s("jobstats: x")}
	with := func(f func(*planner.Job)) planner.Job { j := job; f(&j); return j }
	tests := []struct {
		name        string
		job         planner.Job
		trail       *Trail
		want        JobUpdate
		wantChanged int
		wantNotes   int
	}{
		{"everything back", job, trail, full, 0, 0},
		{"no database: no GPUs, a note", job, nil, JobUpdate{ResetPriority: true, TimeLimitMinutes: 120,
			BeginTime: full.BeginTime, AdminComment: s("jobstats: x")}, 0, 2},
		{"limit raised by an admin", with(func(j *planner.Job) { j.TimeLimit = 45 * time.Minute }), trail, JobUpdate{}, 1, 0},
		{"priority changed", with(func(j *planner.Job) { j.Priority = 5 }), trail, JobUpdate{}, 1, 0},
		{"GPUs changed", with(func(j *planner.Job) { j.GPUsPerNode = 3 }), trail, JobUpdate{}, 1, 0},
		{"begin time changed", with(func(j *planner.Job) { j.DeferredUntil, j.BeginTime = time.Time{}, now.Add(3*time.Hour) }),
			trail, JobUpdate{}, 1, 0},
		{"held: priority left to the hold", with(func(j *planner.Job) { j.Priority, j.Reason = 0, "JobHeldUser" }), trail,
			func() JobUpdate { u := full; u.ResetPriority = false; return u }(), 0, 1},
		{"no segment (an older operator's write): the limit is named, the rest comes back",
			with(func(j *planner.Job) { j.AdminComment, j.DeferredUntil = "jobstats: x", time.Time{} }), trail,
			func() JobUpdate { u := full; u.TimeLimitMinutes, u.BeginTime, u.AdminComment = 0, 0, nil; return u }(), 0, 1},
		{"a nice value Strata wrote: reset too", job,
			&Trail{FirstGPUs: 4, Applied: []string{`{"nice":500,"tres_per_node":"gres/gpu:2","time_limit":{"set":true,"number":30}}`}},
			full, 0, 0},
		{"Strata never wrote a priority: none reset", with(func(j *planner.Job) { j.Priority = 5 }),
			&Trail{FirstGPUs: 4, Applied: []string{`{"tres_per_node":"gres/gpu:2","time_limit":{"set":true,"number":30}}`}},
			func() JobUpdate { u := full; u.ResetPriority = false; return u }(), 0, 0},
		{"parameter-server tasks Strata set: the GPU request is named, not guessed", job,
			&Trail{FirstGPUs: 4, Applied: []string{`{"priority":{"set":true,"number":88888},"tasks":3,"tres_per_node":"gres/gpu:2","time_limit":{"set":true,"number":30}}`}},
			func() JobUpdate {
				u := full
				u.TresPerNode, u.CPUsPerTask, u.MinimumCPUs, u.MinimumCPUsPerNode, u.MemoryPerNodeMB = nil, 0, 0, 0, 0
				return u
			}(), 0, 1},
		{"limit already the user's", with(func(j *planner.Job) { j.TimeLimit = 2 * time.Hour }), trail,
			func() JobUpdate { u := full; u.TimeLimitMinutes = 0; return u }(), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cw, _ := decide.ParseAdminComment(tt.job.AdminComment)
			p, err := restoreFor(tt.job, cw, tt.trail, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.changed) != tt.wantChanged || len(p.notes) != tt.wantNotes {
				t.Errorf("changed %q, notes %q; want %d and %d", p.changed, p.notes, tt.wantChanged, tt.wantNotes)
			}
			if tt.wantChanged == 0 {
				if diff := cmp.Diff(tt.want, p.u); diff != "" {
					t.Errorf("update (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestWithoutSegment: restore removes Strata's segment and keeps what
// other tools wrote before it.
func TestWithoutSegment(t *testing.T) {
	for in, want := range map[string]string{
		"strata: workers=1 ps=0 rank=1 cycle=1":                   "",
		"jobstats: ok; strata: workers=1 ps=0 rank=1 cycle=1 n=2": "jobstats: ok",
		"no segment at all":                                       "no segment at all",
	} {
		if got := withoutSegment(in); got != want {
			t.Errorf("withoutSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

// The priority reset goes out as "infinite" (slurmctld: recompute), never
// as 0 (a hold) nor as a number.
func TestResetPriorityBody(t *testing.T) {
	b, err := (&v0042{}).updateBody(JobUpdate{ResetPriority: true})
	if err != nil || string(b) != `{"priority":{"infinite":true}}` {
		t.Errorf("body %s (%v)", b, err)
	}
}

// Only slurmctld's EAGAIN (slurm error 11) makes restore send a write
// again; a refusal is final.
func TestRestoreBusy(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("update job 1: %w", &APIError{Status: 500, Errors: []Problem{{Number: 11}}}), true},
		{fmt.Errorf("update job 1: %w", &APIError{Status: 500, Errors: []Problem{{Number: 2002}}}), false},
		{errors.New("connection refused"), false},
		{nil, false},
	} {
		if got := busy(tt.err); got != tt.want {
			t.Errorf("busy(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
