package sim

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
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
