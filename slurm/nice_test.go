package slurm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// The writer follows the nice priority mode: the nice and the admin
// comment's nice= are written, priority is not; a job whose priority
// Strata fixed in the absolute mode gets it released ("infinite") with the
// nice; an absolute write after a nice mode drops nice= (Slurm resets the
// nice when a priority is set).
func TestJobUpdateNiceMode(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	nice := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name  string
		admin string
		cur   int64 // the job's nice
		d     planner.Decision
		body  string
	}{
		{"a nice, best rank", "", 0, planner.Decision{JobID: 1, Workers: 2, Rank: 1, Nice: nice(-2000)},
			`{"admin_comment":"strata: workers=2 ps=0 rank=1 cycle=9 n=1 nice=-2000","nice":-2000}`},
		{"the absolute priority released", "strata: workers=2 ps=0 rank=4 cycle=8 n=1", 0,
			planner.Decision{JobID: 1, Workers: 2, Rank: 2, Nice: nice(0)},
			`{"admin_comment":"strata: workers=2 ps=0 rank=2 cycle=9 n=2 nice=0","nice":0,"priority":{"infinite":true}}`},
		{"an unchanged nice is not sent", "strata: workers=2 ps=0 rank=2 cycle=8 n=1 nice=500", 500,
			planner.Decision{JobID: 1, Workers: 2, Rank: 2, Nice: nice(500)},
			`{"admin_comment":"strata: workers=2 ps=0 rank=2 cycle=9 n=2 nice=500"}`},
		{"back to absolute: nice= dropped", "strata: workers=2 ps=0 rank=2 cycle=8 n=1 nice=500", 500,
			planner.Decision{JobID: 1, Workers: 2, Rank: 2, Priority: 100010},
			`{"admin_comment":"strata: workers=2 ps=0 rank=2 cycle=9 n=2","priority":{"number":100010,"set":true}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := planner.Job{ID: 1, State: planner.JobPending, SubmitTime: now.Add(-time.Hour), Priority: 4000,
				Nice: tc.cur, GPUsPerNode: 2, Nodes: 1, AdminComment: tc.admin}
			u, changed := jobUpdateFor(cur, tc.d, 9, now)
			if !changed {
				t.Fatal("nothing to write")
			}
			b, err := (&v0042{}).updateBody(u)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.body, string(b)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSitePriorityRead(t *testing.T) {
	for _, tc := range []struct {
		name        string
		prio, nice  int64
		admin, want string
		site        int64
	}{
		{"no nice: the priority", 4000, 0, "", "", 4000},
		{"Strata's nice taken back out", 2500, 1500, "strata: workers=2 ps=0 rank=3 cycle=1 nice=1500", "", 4000},
		{"a priority Strata fixed: unknown", 100010, 0, "strata: workers=2 ps=0 rank=3 cycle=1", "", 0},
		{"held: unknown", 0, 0, "", "", 0},
		{"at Slurm's floor: the nice may hide the factors", 1, 2000, "strata: workers=2 ps=0 rank=3 cycle=1 nice=2000", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := jobWireV0042{JobID: 1, JobState: []string{"PENDING"}, Priority: noValV0042{Set: true, Number: tc.prio},
				Nice: tc.nice, AdminComment: tc.admin, TresPerNode: "gres/gpu:2"}
			j := jobFromV0042(&in)
			if j.Nice != tc.nice || j.SitePriority != tc.site {
				t.Errorf("nice %d site priority %d, want %d and %d", j.Nice, j.SitePriority, tc.nice, tc.site)
			}
		})
	}
}
