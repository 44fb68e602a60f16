package planner_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// rankOrder lists the ranked jobs of a plan by rank.
func rankOrder(p planner.Plan) []int64 {
	ds := slices.Clone(p.Decisions)
	ds = slices.DeleteFunc(ds, func(d planner.Decision) bool { return d.Rank == 0 })
	slices.SortFunc(ds, func(a, b planner.Decision) int { return a.Rank - b.Rank })
	var out []int64
	for _, d := range ds {
		out = append(out, d.JobID)
	}
	return out
}

// dl is a deadline= hint h hours after t0.
func dl(h int) string {
	return fmt.Sprintf("deadline=%s", t0.Add(time.Duration(h)*time.Hour).Format(time.RFC3339))
}

// The first-principle baselines order the queue by deadline (edf) and by
// tardiness weight (priority); ties and jobs without the key go by job ID.
func TestFirstPrincipleOrder(t *testing.T) {
	tests := []struct {
		policy   string
		comments []string // jobs 1.. in this order
		want     []int64
	}{
		{policy: "edf", comments: []string{"strata: " + dl(3), "strata: " + dl(1), "", "strata: " + dl(2)},
			want: []int64{2, 4, 1, 3}},
		{policy: "edf", comments: []string{"", "strata: weight=5", "strata: " + dl(9)}, want: []int64{3, 1, 2}},
		{policy: "priority", comments: []string{"strata: weight=1", "strata: weight=3", "", "strata: weight=3 " + dl(1)},
			want: []int64{2, 4, 1, 3}},
		{policy: "priority", comments: []string{"strata: " + dl(1), "strata: weight=0.5", "strata: weight=2"},
			want: []int64{3, 1, 2}},
		{policy: "fifo", comments: []string{"strata: " + dl(3), "strata: weight=9", "strata: " + dl(1)},
			want: []int64{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.policy, len(tc.comments)), func(t *testing.T) {
			b := pt.Cluster("order", t0).Partition("gpu", true).Nodes("n", 1, 1, 64, 512*1024, "gpu", "t4")
			for k, c := range tc.comments {
				b.Pending(int64(k+1), 1, c, pt.Submitted(t0.Add(time.Duration(k)*time.Minute)))
			}
			s := b.Build()
			p, err := planner.NewPolicy(tc.policy, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := p.Plan(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rankOrder(plan)); diff != "" {
				t.Errorf("rank order (-want +got):\n%s", diff)
			}
			checkPlan(t, tc.policy, false, s, plan)
		})
	}
}

// deadlineSnapshot is Synthetic with a deadline and a weight on every
// pending job, varied by seed.
func deadlineSnapshot(seed uint64) *planner.Snapshot { return deadlineSynthetic(6, 4, 30, seed) }

// deadlineSynthetic is pt.Synthetic with a deadline (0 to 29 hours ahead)
// and a weight on every pending job.
func deadlineSynthetic(nodes, gpn, pending int, seed uint64) *planner.Snapshot {
	s := pt.Synthetic(nodes, gpn, pending, seed)
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.State != planner.JobPending || j.Comment == "notes without hints" {
			continue
		}
		h := int64(j.ID*7+int64(seed)) % 30
		hint := fmt.Sprintf("deadline=%s weight=%g", s.Now.Add(time.Duration(h)*time.Hour).Format(time.RFC3339), 0.5+float64(h%5)/2)
		if len(j.Comment) > 7 && j.Comment[:7] == "strata:" {
			j.Comment += " " + hint
		} else {
			j.Comment = "strata: " + hint
		}
	}
	return s
}

// andreas plans the same snapshot the same way (its randomness is seeded
// from the snapshot ID), whether its policy is new or reused.
func TestAndreasDeterministic(t *testing.T) {
	o := planner.Options{EnergyWeight: 20, TardinessWeight: 1}
	for seed := range uint64(6) {
		s := deadlineSnapshot(seed)
		a, _ := planner.NewPolicy("andreas", o)
		b, _ := planner.NewPolicy("andreas", o)
		p1, err := a.Plan(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		p2, _ := b.Plan(context.Background(), s)
		p3, _ := a.Plan(context.Background(), s)
		if diff := cmp.Diff(p1, p2); diff != "" {
			t.Errorf("seed %d: two policies differ (-first +second):\n%s", seed, diff)
		}
		if diff := cmp.Diff(p1, p3); diff != "" {
			t.Errorf("seed %d: a second call differs (-first +second):\n%s", seed, diff)
		}
		checkPlan(t, "andreas", false, s, p1)
	}
}

// andreas keeps its first, deterministic greedy pass unless a randomized
// one costs less: never worse than that pass in its own objective.
func TestAndreasNeverWorseThanFirstPass(t *testing.T) {
	o := planner.Options{EnergyWeight: 20, TardinessWeight: 1}
	improved := 0
	for seed := range uint64(20) {
		first, best, err := planner.AndreasCosts(deadlineSnapshot(seed), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) == 0 {
			t.Fatalf("seed %d: no island to plan", seed)
		}
		for k := range first {
			if best[k] > first[k] {
				t.Errorf("seed %d island %d: kept cost %v > first pass %v", seed, k, best[k], first[k])
			}
			if best[k] < first[k] {
				improved++
			}
		}
	}
	t.Logf("randomized passes beat the first pass on %d of 20 snapshots", improved)
}
