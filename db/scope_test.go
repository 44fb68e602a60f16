package db_test

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Scopes used by the scope tests over the demo recording: jobs 101 (alice,
// vision), 102 (bob, nlp), 103 (alice, nlp), 104 (carol, vision); decisions
// about 101 (alice), 102 (bob) and 900 (dave, a job without a job row or
// telemetry).
var (
	scopeAlice = db.Scope{Limited: true, Users: []string{"alice"}}
	scopeNLP   = db.Scope{Limited: true, Accounts: []string{"nlp"}}
	scopeNone  = db.Scope{Limited: true}
)

// scopedStore is the demo store with decisions about 101, 102 and 900.
func scopedStore(t *testing.T) *db.Store {
	t.Helper()
	s, _ := demoStore(t)
	dec := func(job int64, user string) db.CycleDecision {
		return db.CycleDecision{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate,
			Reasons: []planner.Reason{"smd_optimal"}}, User: user, JobName: "j", Partition: "gpu", Outcome: decide.Applied}
	}
	c := &db.Cycle{Cluster: "test", SnapshotID: "s", Policy: "smd", StartedAt: demoT0,
		Decisions: []db.CycleDecision{dec(101, "alice"), dec(102, "bob"), dec(900, "dave")}}
	if err := s.SaveCycle(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return s
}

// Each report, in a limited scope, holds exactly the scope's jobs; the
// filters narrow within the scope and never widen it.
func TestReportsApplyScope(t *testing.T) {
	s := scopedStore(t)
	ctx := context.Background()
	jobsOf := func(f db.ReportFilter) []int64 {
		rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimJob}})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{}
		for _, r := range rows {
			ids = append(ids, r.Job)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		return ids
	}
	usersOf := func(f db.ReportFilter) []string {
		rows, err := s.UsageReport(ctx, db.UsageQuery{ReportFilter: f, By: []db.ReportDim{db.DimUser}})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, r := range rows {
			out = append(out, r.User)
		}
		return out
	}
	decisionJobs := func(f db.ReportFilter) int {
		rows, err := s.DecisionReport(ctx, db.DecisionQuery{ReportFilter: f})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			n += r.Jobs
		}
		return n
	}
	tests := []struct {
		name      string
		scope     db.Scope
		users     []string // filter
		jobs      []int64
		usage     []string
		decisions int
	}{
		{"admin", db.Scope{}, nil, []int64{101, 102, 103, 104}, []string{"alice", "bob", "carol"}, 3},
		{"user alice", scopeAlice, nil, []int64{101, 103}, []string{"alice"}, 1},
		{"user alice asks for bob", scopeAlice, []string{"bob"}, []int64{}, []string{}, 0},
		{"coordinator nlp", scopeNLP, nil, []int64{102, 103}, []string{"alice", "bob"}, 1},
		{"coordinator nlp asks for alice", scopeNLP, []string{"alice"}, []int64{103}, []string{"alice"}, 0},
		{"alice or nlp", db.Scope{Limited: true, Users: []string{"alice"}, Accounts: []string{"nlp"}}, nil,
			[]int64{101, 102, 103}, []string{"alice", "bob"}, 2},
		{"nothing", scopeNone, nil, []int64{}, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := window(0, time.Hour)
			f.Scope, f.Users = tt.scope, tt.users
			if d := cmp.Diff(tt.jobs, jobsOf(f)); d != "" {
				t.Errorf("energy by job (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.usage, usersOf(f)); d != "" {
				t.Errorf("usage by user (-want +got):\n%s", d)
			}
			if got := decisionJobs(f); got != tt.decisions {
				t.Errorf("decisions cover %d jobs, want %d", got, tt.decisions)
			}
		})
	}
}

// A job outside the reader's scope is not found, as an unknown one; a job
// with decisions but no job row or telemetry is found (its facts from its
// decisions) by those whose scope covers its user.
func TestJobReportScope(t *testing.T) {
	s := scopedStore(t)
	ctx := context.Background()
	tests := []struct {
		name      string
		job       int64
		scope     db.Scope
		found     bool
		user      string
		gpus      int
		decisions int
	}{
		{"admin, alice's job", 101, db.Scope{}, true, "alice", 2, 1},
		{"alice, her job", 101, scopeAlice, true, "alice", 2, 1},
		{"alice, bob's job", 102, scopeAlice, false, "", 0, 0},
		{"nlp coordinator, bob's job", 102, scopeNLP, true, "bob", 2, 1},
		{"nlp coordinator, alice's vision job", 101, scopeNLP, false, "", 0, 0},
		{"admin, job with decisions only", 900, db.Scope{}, true, "dave", 0, 1},
		{"dave, his job with decisions only", 900, db.Scope{Limited: true, Users: []string{"dave"}}, true, "dave", 0, 1},
		{"alice, dave's job with decisions only", 900, scopeAlice, false, "", 0, 0},
		{"admin, unknown job", 999, db.Scope{}, false, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jr, err := s.JobReport(ctx, tt.job, tt.scope)
			if !tt.found {
				if !errors.Is(err, db.ErrNotFound) {
					t.Fatalf("err = %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [3]any{jr.User, len(jr.GPUs), len(jr.Decisions)}
			if d := cmp.Diff([3]any{tt.user, tt.gpus, tt.decisions}, got); d != "" {
				t.Errorf("user, GPUs, decisions (-want +got):\n%s", d)
			}
		})
	}
}

// The per-GPU view: each GPU's totals add up to the job's, its series and
// memory peak come from its own samples.
func TestJobReportPerGPU(t *testing.T) {
	s, _ := demoStore(t)
	jr, err := s.JobReport(context.Background(), 104, db.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var gpuSec, energy float64
	for _, g := range jr.PerGPU {
		gpuSec += g.GPUSeconds
		energy += g.EnergyJ
		if len(g.Series) == 0 || g.MemPeakBytes <= 0 || g.UtilGPU < 0 || g.UtilGPU > 100 || g.PowerW <= 0 {
			t.Errorf("GPU %s: %d bins, mem peak %d, util %.1f, power %.1f: want bins, a peak, util in 0..100, power",
				g.UUID, len(g.Series), g.MemPeakBytes, g.UtilGPU, g.PowerW)
		}
	}
	if len(jr.PerGPU) != 3 {
		t.Errorf("%d GPUs, want 3", len(jr.PerGPU))
	}
	if d := cmp.Diff([2]float64{jr.Totals.GPUSeconds, jr.Totals.EnergyJ}, [2]float64{gpuSec, energy}, approx(1e-9)); d != "" {
		t.Errorf("per-GPU sums vs job totals (-want +got):\n%s", d)
	}
}
