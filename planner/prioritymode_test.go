package planner_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// rankWrites is each job's (rank, priority, nice; nil nice as -1<<40).
func rankWrites(t *testing.T, o planner.Options, s *planner.Snapshot) map[int64][3]int64 {
	t.Helper()
	got := map[int64][3]int64{}
	for id, d := range plan(t, "smd", o, s) {
		nice := int64(-1 << 40)
		if d.Nice != nil {
			nice = *d.Nice
		}
		got[id] = [3]int64{int64(d.Rank), d.Priority, nice}
	}
	return got
}

func TestPriorityModes(t *testing.T) {
	three := pt.Cluster("prio", t0).Partition("gpu", true).Nodes("n", 1, 2, 64, 512<<10, "gpu", "").
		Pending(1, 2, "a", pt.TimeLimit(3*time.Hour)).Pending(2, 2, "b", pt.TimeLimit(time.Hour)).
		Pending(3, 2, "c", pt.TimeLimit(2*time.Hour)).Build()
	one := pt.Cluster("one", t0).Partition("gpu", true).Nodes("n", 1, 2, 64, 512<<10, "gpu", "").
		Pending(1, 2, "a", pt.TimeLimit(time.Hour)).Build()
	const none = -1 << 40
	// Job 2 (1 h) starts; then shortest first: 3 (2 h), 1 (3 h).
	for _, tc := range []struct {
		name string
		o    planner.Options
		s    *planner.Snapshot
		want map[int64][3]int64
	}{
		{"absolute (the zero Options)", planner.Options{PriorityBase: 1000, PriorityStep: 5}, three,
			map[int64][3]int64{2: {1, 1010, none}, 3: {2, 1005, none}, 1: {3, 1000, none}}},
		{"nice, band 1000", planner.Options{PriorityMode: planner.PriorityNice, NiceBand: 1000}, three,
			map[int64][3]int64{2: {1, 0, -1000}, 3: {2, 0, 0}, 1: {3, 0, 1000}}},
		{"nice, default band", planner.SiteDefaults(), three,
			map[int64][3]int64{2: {1, 0, -planner.DefaultNiceBand}, 3: {2, 0, 0}, 1: {3, 0, planner.DefaultNiceBand}}},
		{"nice, band 0", planner.Options{PriorityMode: planner.PriorityNice, NiceBand: planner.NiceBandNone}, three,
			map[int64][3]int64{2: {1, 0, 0}, 3: {2, 0, 0}, 1: {3, 0, 0}}},
		{"nice, a lone job gets the best", planner.Options{PriorityMode: planner.PriorityNice, NiceBand: 500}, one,
			map[int64][3]int64{1: {1, 0, -500}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rankWrites(t, tc.o, tc.s)); diff != "" {
				t.Errorf("rank/priority/nice mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// The site's priority weighs a job in smd's objective in the nice mode:
// a 90-minute job the site ranks first is ranked before a 60-minute job
// the site does not rank (its weight doubles: 5400/2 < 3600/1); in the
// absolute mode (Strata's own writes fix the priority) it is not read.
func TestSitePriorityWeighsTheObjective(t *testing.T) {
	site := func(p int64) func(*planner.Job) { return func(j *planner.Job) { j.SitePriority = p } }
	s := pt.Cluster("site", t0).Partition("gpu", true).Nodes("n", 1, 2, 64, 512<<10, "gpu", "").
		Running(1, 2, "n0001", t0.Add(-10*time.Minute), pt.TimeLimit(2*time.Hour)).
		Pending(2, 2, "short", pt.TimeLimit(time.Hour), site(100)).
		Pending(3, 2, "qos-high", pt.TimeLimit(90*time.Minute), site(10000)).Build()
	for _, tc := range []struct {
		name string
		o    planner.Options
		want map[int64]int
	}{
		{"nice: the site's order counts", planner.Options{PriorityMode: planner.PriorityNice}, map[int64]int{2: 2, 3: 1}},
		{"absolute: Strata's alone", planner.Options{}, map[int64]int{2: 1, 3: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[int64]int{}
			for id, d := range plan(t, "smd", tc.o, s) {
				if id != 1 {
					got[id] = d.Rank
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ranks (-want +got):\n%s", diff)
			}
		})
	}
}

// Where a job's own priority is not known (the absolute mode, or a job
// without SitePriority), the site's policy read beside it weighs it: the
// 90-minute job of a light user (fairshare 1) is ranked before the
// 60-minute job of a heavy user (fairshare 0); the job's own priority
// wins where it is known; without either the shortest goes first;
// SiteWeights.Protect weighs the light user's job up on top of equal
// priorities (1 + 1 × 1: 5400/4 < 3600/2). A job
// that needs the site's policy when it could not be read is left
// untouched for the cycle (no priority, no nice), with its reason.
func TestSitePolicyWeighsWhereThePriorityIsUnknown(t *testing.T) {
	fs := func(f float64) pt.JobOpt {
		return func(j *planner.Job) { j.Site = &planner.SiteFactors{Fairshare: f} }
	}
	prio := func(p int64) pt.JobOpt { return func(j *planner.Job) { j.SitePriority = p } }
	var unread pt.JobOpt = func(j *planner.Job) { j.SiteUnread = "GET /shares: 500 Internal Server Error" }
	build := func(heavy, light []pt.JobOpt) *planner.Snapshot {
		return pt.Cluster("site", t0).Partition("gpu", true).Nodes("n", 1, 2, 64, 512<<10, "gpu", "").
			Running(1, 2, "n0001", t0.Add(-10*time.Minute), pt.TimeLimit(2*time.Hour)).
			Pending(2, 2, "heavy", append(heavy, pt.TimeLimit(time.Hour))...).
			Pending(3, 2, "light", append(light, pt.TimeLimit(90*time.Minute))...).Build()
	}
	fsOnly := planner.SiteWeights{Fairshare: 1}
	nice := planner.Options{PriorityMode: planner.PriorityNice, SiteWeights: fsOnly}
	keep := func(r planner.Reason) string { return "keep " + string(r) }
	for _, tc := range []struct {
		name string
		o    planner.Options
		s    *planner.Snapshot
		want map[int64]string
	}{
		{"absolute: fairshare weighs", planner.Options{SiteWeights: fsOnly}, build([]pt.JobOpt{fs(0)}, []pt.JobOpt{fs(1)}),
			map[int64]string{2: "rank 2", 3: "rank 1"}},
		{"absolute: QOS-only weights ignore fairshare", planner.Options{SiteWeights: planner.SiteWeights{QOS: 1}},
			build([]pt.JobOpt{fs(0)}, []pt.JobOpt{fs(1)}), map[int64]string{2: "rank 1", 3: "rank 2"}},
		{"nice: the job's own priority wins", nice,
			build([]pt.JobOpt{fs(0), prio(10000)}, []pt.JobOpt{fs(1), prio(100)}),
			map[int64]string{2: "rank 1", 3: "rank 2"}},
		{"nice: no priority, the policy counts", nice, build([]pt.JobOpt{fs(0)}, []pt.JobOpt{fs(1)}),
			map[int64]string{2: "rank 2", 3: "rank 1"}},
		{"nice: equal priorities, no protection: shortest first", nice,
			build([]pt.JobOpt{fs(0), prio(100)}, []pt.JobOpt{fs(1), prio(100)}), map[int64]string{2: "rank 1", 3: "rank 2"}},
		{"nice: protect weighs the light user up", planner.Options{PriorityMode: planner.PriorityNice,
			SiteWeights: planner.SiteWeights{Fairshare: 1, Protect: 1}},
			build([]pt.JobOpt{fs(0), prio(100)}, []pt.JobOpt{fs(1), prio(100)}), map[int64]string{2: "rank 2", 3: "rank 1"}},
		{"absolute: /shares unread leaves both untouched", planner.Options{}, build([]pt.JobOpt{unread}, []pt.JobOpt{unread}),
			map[int64]string{2: keep(planner.ReasonSiteUnread), 3: keep(planner.ReasonSiteUnread)}},
		{"nice: /shares unread, the known priority still weighs", nice,
			build([]pt.JobOpt{unread, prio(100)}, []pt.JobOpt{unread}),
			map[int64]string{2: "rank 1", 3: keep(planner.ReasonSiteUnread)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[int64]string{}
			for id, d := range plan(t, "smd", tc.o, tc.s) {
				switch {
				case id == 1:
				case d.Action == planner.ActionKeep && d.Rank == 0:
					got[id] = keep(d.Reasons[0])
					if d.Priority != 0 || d.Nice != nil {
						t.Errorf("job %d kept but written: priority %d nice %v", id, d.Priority, d.Nice)
					}
				default:
					got[id] = fmt.Sprintf("rank %d", d.Rank)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
