package sim

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// Classic and fair-tree fairshare factors over root → accounts → users
// (fairtree.go), worked by hand from Slurm's formulas. Two accounts of
// two users, a1 of account A the only one with usage: classic gives a1
// 2^(−1/0.25), a2 2^(−0.5/0.25) (its account's usage counts half: UE =
// 0 + (1 − 0)/2), B's users 1; fair tree ranks B (LF +Inf) above A (LF
// 0.5), B's two users tied at rank 4 of 4, then a2 (no usage) 2/4 and a1
// 1/4: every user of the lighter account above every user of the heavier.
// Without usage every user gets 1 in both.
func TestFairshareTree(t *testing.T) {
	acct := map[string]string{"a1": "A", "a2": "A", "b1": "B", "b2": "B"}
	for _, tc := range []struct {
		name     string
		usage    map[string]float64
		fairTree bool
		want     map[string]float64
	}{
		{"classic", map[string]float64{"a1": 10}, false, map[string]float64{"a1": 0.0625, "a2": 0.25, "b1": 1, "b2": 1}},
		{"fair tree", map[string]float64{"a1": 10}, true, map[string]float64{"a1": 0.25, "a2": 0.5, "b1": 1, "b2": 1}},
		{"fair tree, usage in both", map[string]float64{"a1": 30, "a2": 10, "b1": 20}, true,
			// LF: A 0.5/(40/60) = 0.75, B 0.5/(20/60) = 1.5; in B: b2 +Inf, b1 0.5; in A: a2 0.5/(10/40) = 2, a1 0.5/0.75.
			map[string]float64{"b2": 1, "b1": 0.75, "a2": 0.5, "a1": 0.25}},
		{"fair tree, tied accounts merge", map[string]float64{"a1": 10, "b1": 10}, true,
			// A and B tie (LF 1): their users ranked together, a2 and b2 (+Inf) tied at 4, a1 and b1 (0.5) tied at 2.
			map[string]float64{"a2": 1, "b2": 1, "a1": 0.5, "b1": 0.5}},
		{"classic, no usage", map[string]float64{}, false, map[string]float64{"a1": 1, "a2": 1, "b1": 1, "b2": 1}},
		{"fair tree, no usage", map[string]float64{}, true, map[string]float64{"a1": 1, "a2": 1, "b1": 1, "b2": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := newFSTree(acct, tc.usage)
			got := tree.classic()
			if tc.fairTree {
				got = tree.fairTree()
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
				t.Errorf("factors (-want +got):\n%s", diff)
			}
		})
	}
}

// Users are dealt to the accounts in turn by name; 0 accounts makes every
// user an account of its own.
func TestAccountOf(t *testing.T) {
	users := []string{"u3", "u1", "u2"}
	if diff := cmp.Diff(map[string]string{"u1": "acct-0", "u2": "acct-1", "u3": "acct-0"}, accountOf(users, 2)); diff != "" {
		t.Errorf("2 accounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"u1": "u1", "u2": "u2", "u3": "u3"}, accountOf(users, 0)); diff != "" {
		t.Errorf("no accounts (-want +got):\n%s", diff)
	}
}

// Partition tiers and job factors: "gpu=2/1000,cpu=1" gives gpu tier 2
// and factor 1000, cpu tier 1 and factor 1; bad specs are refused naming
// the item. slurmctld queues a job of the higher tier first whatever its
// priority, and the partition factor (over the largest) adds
// PriorityWeightPartition × factor to the priority.
func TestPartitionPriority(t *testing.T) {
	got, err := ParsePartitionPriority("gpu=2/1000,cpu=1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]PartPriority{"gpu": {2, 1000}, "cpu": {1, 1}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"gpu", "gpu=x", "gpu=-1", "gpu=1/-2", "gpu=1,gpu=2", "=1"} {
		if _, err := ParsePartitionPriority(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	cfg := Config{Slurm: SlurmConfig{PartitionPriority: "low=1/100,high=2/1000", PriorityWeightPartition: 1000}}.withDefaults()
	e := &engine{cfg: cfg, jobs: []job{
		{pj: planner.Job{User: "u", Partition: "low"}, prio: 5000},
		{pj: planner.Job{User: "u", Partition: "high"}, prio: 10},
		{pj: planner.Job{User: "u", Partition: "low,high"}, prio: 20},
	}, pending: []int{0, 1, 2}}
	if diff := cmp.Diff([]int{2, 1, 0}, e.queue(0)); diff != "" {
		t.Errorf("queue order (-want +got):\n%s", diff)
	}
	s := &slurmState{conf: cfg.Slurm, nodes: 1, cpus: 1}
	lo, hi := e.priority(s, &e.jobs[0], 0), e.priority(s, &e.jobs[1], 0)
	if hi-lo != 900 {
		t.Errorf("priorities low %d, high %d: want high's partition factor 900 above (1000 × (1 − 0.1))", lo, hi)
	}
}

// The report charges every GPU-second a job ran to its user and account,
// to the end of the run: a 4-GPU job running alone for 10 hours after the
// queue emptied counts 144000 GPU-seconds (before, usage was charged only
// at priority recalculations, which stop with the queue: it counted 0).
func TestFairshareChargesTheWholeRun(t *testing.T) {
	cfg := Config{Cluster: ClusterSpec{Nodes: 1, GPUsPerNode: 4, GPUType: "t4"},
		Slurm: SlurmConfig{Reservations: 1, PriorityWeightFairshare: 1000, Accounts: 1}}
	_, e := slurmRun(t, cfg, "job_id,submit_time,duration_s,gpus,user\nlong,0,36000,4,alice\nshort,1,60,1,bob\n", nil)
	want := map[string]float64{"alice": 144000, "bob": 60}
	if diff := cmp.Diff(want, e.userGPUSeconds()); diff != "" {
		t.Errorf("user GPU-seconds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"acct-0": 144060}, e.accountGPUSeconds()); diff != "" {
		t.Errorf("account GPU-seconds (-want +got):\n%s", diff)
	}
}

// What the simulated Strata reads beside a pending job is what slurm/
// reads on a real cluster: the fairshare factor, the QOS factor and the
// partition's job factor over the largest.
func TestSiteRead(t *testing.T) {
	cfg := Config{Slurm: SlurmConfig{PriorityWeightQOS: 1000, QOSHigh: 1, PartitionPriority: "low=1/100,high=2/1000"}}.withDefaults()
	e := &engine{cfg: cfg, jobs: []job{{pj: planner.Job{User: "u", Partition: "low"}}}}
	if diff := cmp.Diff(&planner.SiteFactors{Fairshare: 1, QOS: 1, Partition: 0.1}, e.siteRead(&e.jobs[0])); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	e.cfg.Slurm = SlurmConfig{}.withDefaults()
	if f := e.siteRead(&e.jobs[0]); f != nil {
		t.Errorf("no site policy modelled: read %+v, want nil", f)
	}
}
