package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// The fairshare factor over a two-level association tree, root →
// accounts → users, equal shares at each level (SlurmConfig.Accounts
// accounts, the users dealt to them in turn by name; 0: every user an
// account of its own), from Slurm's priority/multifactor plugin:
//
// Classic (PriorityFlags=NO_FAIR_TREE; _set_usage_efctv and
// _set_assoc_fs_factor in priority_multifactor.c): S = the product of the
// share fractions down the tree; an account's effective usage is its
// share of all usage (a child of root), a user's UE = U + (UE_account −
// U)·s_user/s_siblings with U its share of all usage; F = 2^(−UE/S).
//
// Fair tree (Slurm's default since 19.05; fair_tree.c, _calc_tree_fs):
// each association's level fairshare LF = S/U among its siblings (S its
// shares over the siblings', U its usage over its parent's; U = 0 gives
// +Inf); siblings sorted by LF, highest first, accounts of equal LF merged;
// users ranked depth first from the number of users down, equal LF sharing
// a rank; F = rank / users. All users of an account with a higher LF rank
// above all users of a lower one.

// accountOf maps each user to its account: with n > 0 accounts, "acct-K"
// for the K-th (from 0) of n dealt in turn over the sorted users; else the
// user itself.
func accountOf(users []string, n int) map[string]string {
	sorted := slices.Clone(users)
	slices.Sort(sorted)
	out := make(map[string]string, len(sorted))
	for k, u := range sorted {
		if n > 0 {
			out[u] = fmt.Sprintf("acct-%d", k%n)
		} else {
			out[u] = u
		}
	}
	return out
}

// fsTree is the association tree with each user's usage.
type fsTree struct {
	accounts []string            // sorted
	users    map[string][]string // account → its users, sorted
	usage    map[string]float64  // user → decayed usage
}

func newFSTree(account map[string]string, usage map[string]float64) fsTree {
	t := fsTree{users: map[string][]string{}, usage: usage}
	for u, a := range account {
		if _, ok := t.users[a]; !ok {
			t.accounts = append(t.accounts, a)
		}
		t.users[a] = append(t.users[a], u)
	}
	slices.Sort(t.accounts)
	for _, us := range t.users {
		slices.Sort(us)
	}
	return t
}

func (t fsTree) accountUsage(a string) float64 {
	var sum float64
	for _, u := range t.users[a] {
		sum += t.usage[u]
	}
	return sum
}

// classic is every user's classic fairshare factor.
func (t fsTree) classic() map[string]float64 {
	var total float64
	for _, v := range t.usage {
		total += v
	}
	out := map[string]float64{}
	for _, a := range t.accounts {
		n := float64(len(t.users[a]))
		ueA := 0.0
		if total > 0 {
			ueA = t.accountUsage(a) / total
		}
		for _, u := range t.users[a] {
			s := 1 / float64(len(t.accounts)) / n
			uu := 0.0
			if total > 0 {
				uu = t.usage[u] / total
			}
			ue := uu + (ueA-uu)/n
			out[u] = math.Exp2(-ue / s)
		}
	}
	return out
}

// levelFS is S/U: +Inf without usage.
func levelFS(s, used, parent float64) float64 {
	if parent <= 0 || used <= 0 {
		return math.Inf(1)
	}
	return s / (used / parent)
}

// fairTree is every user's fair-tree fairshare factor.
func (t fsTree) fairTree() map[string]float64 {
	var total float64
	for _, v := range t.usage {
		total += v
	}
	type node struct {
		name string
		lf   float64
	}
	accts := make([]node, len(t.accounts))
	for i, a := range t.accounts {
		accts[i] = node{a, levelFS(1/float64(len(t.accounts)), t.accountUsage(a), total)}
	}
	byLF := func(x, y node) int { return cmp.Compare(y.lf, x.lf) }
	slices.SortStableFunc(accts, byLF)
	nUsers := 0
	for _, a := range t.accounts {
		nUsers += len(t.users[a])
	}
	out := map[string]float64{}
	rank, rnt := nUsers, nUsers
	prevAcct := math.NaN()
	for i := 0; i < len(accts); {
		// Accounts of equal LF are merged: their users ranked together.
		k := i + 1
		for k < len(accts) && accts[k].lf == accts[i].lf {
			k++
		}
		acctTied := accts[i].lf == prevAcct
		var users []node
		for _, a := range accts[i:k] {
			used := t.accountUsage(a.name)
			for _, u := range t.users[a.name] {
				users = append(users, node{u, levelFS(1/float64(len(t.users[a.name])), t.usage[u], used)})
			}
		}
		slices.SortStableFunc(users, byLF)
		prev := math.NaN()
		for n, u := range users {
			tied := u.lf == prev || n == 0 && acctTied
			if !tied {
				rank = rnt
			}
			out[u.name] = float64(rank) / float64(nUsers)
			rnt--
			prev = u.lf
		}
		prevAcct = accts[i].lf
		i = k
	}
	return out
}
