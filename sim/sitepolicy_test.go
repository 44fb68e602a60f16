package sim

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// Classic fairshare (2^(−U/S), equal shares per user) from the run's own
// usage, decayed with the half-life: a user who used the cluster for an
// hour drops to 2^(−2) = 0.25 of two users, the other stays at 1; so of two
// equal waiting jobs the light user's has the higher Slurm priority
// (issue 31: a user with heavy recent usage does not jump a light user's
// equal job). The decay keeps the ratio while no one runs. Every
// GPU-second a job runs is charged, also after the last recalculation
// (the report's totals: before, the usage of jobs that ran on after the
// queue emptied was lost, 239k of a user's 1115k GPU-seconds).
func TestFairshareClassic(t *testing.T) {
	cfg := Config{Slurm: SlurmConfig{PriorityWeightFairshare: 10000, FairshareHalfLife: time.Hour}}.withDefaults()
	e := &engine{cfg: cfg, jobs: []job{
		{pj: planner.Job{User: "heavy"}, gpus: 4},
		{pj: planner.Job{User: "heavy", GPUsPerNode: 1, Nodes: 1}},
		{pj: planner.Job{User: "light", GPUsPerNode: 1, Nodes: 1}},
	}}
	e.accrueUsage(0)
	e.account(&e.jobs[0], 3600) // what advance charges a running job
	e.accrueUsage(3600)
	got := []float64{e.fsFactor("heavy"), e.fsFactor("light")}
	e.accrueUsage(7200)
	got = append(got, e.fsFactor("heavy"), e.fs.usage["heavy"], e.fs.total["heavy"])
	want := []float64{0.25, 1, 0.25, 4 * 3600 / 2.0, 4 * 3600}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("factors and usage (-want +got):\n%s", diff)
	}
	s := &slurmState{conf: cfg.Slurm, nodes: 1, cpus: 1}
	if h, l := e.priority(s, &e.jobs[1], 7200), e.priority(s, &e.jobs[2], 7200); h >= l {
		t.Errorf("heavy user's job priority %d, light user's %d: want the light one ahead", h, l)
	}
	// Strata's nice comes off Slurm's priority, and not below 1.
	before := e.priority(s, &e.jobs[2], 7200)
	e.jobs[2].nice = 2000
	if l := e.priority(s, &e.jobs[2], 7200); l != before-2000 {
		t.Errorf("light user's job with nice 2000: priority %d, want %d", l, before-2000)
	}
	e.jobs[2].nice = 1 << 30
	if l := e.priority(s, &e.jobs[2], 7200); l != 1 {
		t.Errorf("a nice past the priority: %d, want Slurm's floor 1", l)
	}
}

// --never-hint: round(fraction × users) drawn users lose every hint, the
// others keep theirs; the same seed draws the same users; the trace given
// is not changed.
func TestNeverHint(t *testing.T) {
	tr := &Trace{}
	for i := range 40 {
		tr.Jobs = append(tr.Jobs, TraceJob{ID: string(rune('a' + i%26)), GPUs: 1, Duration: 60})
	}
	tr = AssignUsers(tr, 10)
	out := NeverHint(tr, 0.3, 1)
	never := map[string]bool{}
	for i, j := range out.Jobs {
		if j.NoHint {
			never[j.User] = true
		}
		if tr.Jobs[i].NoHint {
			t.Fatal("the given trace was changed")
		}
	}
	for _, j := range out.Jobs {
		if never[j.User] != j.NoHint {
			t.Errorf("user %s: some jobs hinted, some not", j.User)
		}
	}
	if len(never) != 3 {
		t.Errorf("%d users never hint, want 3 of 10", len(never))
	}
	if diff := cmp.Diff(PickUsers(tr, 0.3, 1, 0x6e68696e74), never); diff != "" {
		t.Errorf("not the drawn users (-want +got):\n%s", diff)
	}
	if NeverHint(tr, 0, 1) != tr {
		t.Error("fraction 0 must leave the trace as it is")
	}
}
