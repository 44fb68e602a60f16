package decide_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// TestWriteCaps (issue 23.6, 23.8): every write counts toward
// MaxWritesPerJob, by the audit trail or by the admin comment's n= (written
// with the update itself, so a crash between a write and its audit record
// cannot under-count), the larger; failed writes toward MaxFailedWrites.
func TestWriteCaps(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	o := decide.Defaults()
	o.MaxWritesPerJob, o.MaxFailedWrites = 5, 2
	job := func(comment string) *planner.Job {
		return &planner.Job{ID: 1, State: planner.JobPending, Priority: 100, GPUsPerNode: 1, Nodes: 1, AdminComment: comment}
	}
	d := planner.Decision{JobID: 1, Action: planner.ActionUpdate, Priority: 9000, Workers: 1}
	for _, tc := range []struct {
		name    string
		comment string
		h       decide.History
		want    decide.Name
	}{
		{"fresh job", "", decide.History{}, ""},
		{"audit trail below the cap", "", decide.History{Writes: map[int64]int{1: 4}}, ""},
		{"audit trail at the cap", "", decide.History{Writes: map[int64]int{1: 5}}, decide.WriteCap},
		{"crash lost audit rows: Slurm's record counts", "strata: workers=1 ps=0 rank=1 cycle=9 n=5", decide.History{Writes: map[int64]int{1: 2}}, decide.WriteCap},
		{"failed writes at their cap", "", decide.History{Writes: map[int64]int{1: 2}, Failed: map[int64]int{1: 2}}, decide.WritesFailing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := decide.PlanWith(planner.Plan{Decisions: []planner.Decision{d}}, map[int64]*planner.Job{1: job(tc.comment)}, tc.h, now, o)[0]
			got := decide.Name("")
			if !v.Write {
				got = v.Guard
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("guard (-want +got):\n%s (verdict %+v)", diff, v)
			}
		})
	}
}

// TestAdminCommentWriteCount: n= round-trips and stays last.
func TestAdminCommentWriteCount(t *testing.T) {
	w := decide.Written{Workers: 2, Rank: 1, Cycle: 3, Writes: 7}
	got, ok := decide.ParseAdminComment(decide.MergeAdminComment("site note", w))
	if !ok || got.Writes != 7 || got.Workers != 2 {
		t.Errorf("parsed %+v (ok %v), want n=7 back", got, ok)
	}
}
