package sim

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/strata-hpc/strata/planner"
)

// The site's policy in Slurm mode (issue 31): priority/multifactor's
// fairshare (classic: 2^(−U/S), priority_multifactor.c) and QOS factors
// beside age and job size, and users who never write a hint.
//
// Fairshare: every user is an account of equal shares (S = 1/users); U is
// the user's share of the usage, GPU-seconds decayed with
// SlurmConfig.FairshareHalfLife (PriorityDecayHalfLife), accrued from the
// run itself at every priority recalculation. QOS: the jobs of the users
// in SlurmConfig.QOSHigh have a normalized QOS priority of 1, others 0.

// fairshare is the decayed and the raw usage per user (GPU-seconds), the
// usage not yet applied (fresh: what engine.account charged since the
// last recalculation), each user's account and fairshare factor
// (fairtree.go).
type fairshare struct {
	usage, total, fresh map[string]float64
	account             map[string]string
	factor              map[string]float64
	last                float64 // when usage was last applied
}

// fairshareState is the run's fairshare state, made at the first call.
func (e *engine) fairshareState(t float64) *fairshare {
	if e.fs == nil {
		fs := &fairshare{usage: map[string]float64{}, total: map[string]float64{}, fresh: map[string]float64{}, last: t}
		seen := map[string]bool{}
		var users []string
		for i := range e.jobs {
			if u := e.jobs[i].pj.User; !seen[u] {
				seen[u] = true
				users = append(users, u)
			}
		}
		fs.account = accountOf(users, e.cfg.Slurm.Accounts)
		e.fs = fs
	}
	return e.fs
}

// chargeUsage charges gs GPU-seconds that j used to its user (from
// engine.account: every GPU-second a job runs, to its end).
func (e *engine) chargeUsage(j *job, gs float64) {
	if e.cfg.Scheduler != SchedulerSlurm || e.cfg.Slurm.PriorityWeightFairshare <= 0 || gs <= 0 {
		return
	}
	fs := e.fairshareState(0)
	fs.fresh[j.pj.User] += gs
	fs.total[j.pj.User] += gs
}

// accrueUsage is priority/multifactor's decay thread at t: every user's
// usage decays since the last call, the usage charged since is added, and
// the fairshare factors are computed again.
func (e *engine) accrueUsage(t float64) {
	fs := e.fairshareState(t)
	dt := t - fs.last
	if dt < 0 {
		return
	}
	if hl := e.cfg.Slurm.FairshareHalfLife.Seconds(); hl > 0 && dt > 0 {
		k := math.Exp2(-dt / hl)
		for u := range fs.usage {
			fs.usage[u] *= k
		}
	}
	for u, v := range fs.fresh {
		fs.usage[u] += v
		delete(fs.fresh, u)
	}
	fs.last = t
	tree := newFSTree(fs.account, fs.usage)
	if e.cfg.Slurm.FairTree {
		fs.factor = tree.fairTree()
	} else {
		fs.factor = tree.classic()
	}
}

// fsFactor is the fairshare factor of user's jobs as of the last
// accrual: classic or fair tree (fairtree.go); 1 before any.
func (e *engine) fsFactor(user string) float64 {
	if e.fs == nil || e.fs.factor == nil {
		return 1
	}
	if f, ok := e.fs.factor[user]; ok {
		return f
	}
	return 1
}

// siteFactors is the fairshare and QOS part of a pending job's priority.
func (e *engine) siteFactors(j *job) float64 {
	c := &e.cfg.Slurm
	var p float64
	if c.PriorityWeightFairshare > 0 {
		p += c.PriorityWeightFairshare * e.fsFactor(j.pj.User)
	}
	if c.PriorityWeightQOS > 0 && e.qosHigh()[j.pj.User] {
		p += c.PriorityWeightQOS
	}
	return p
}

// siteRead is what Strata reads of the site's policy for a pending job
// (planner.Job.Site), when the run models it: its fairshare factor, QOS
// (high 1, else 0) and partition factor (--partition-priority's, else 1:
// one job factor for all).
func (e *engine) siteRead(j *job) *planner.SiteFactors {
	c := &e.cfg.Slurm
	if c.PriorityWeightFairshare <= 0 && c.PriorityWeightQOS <= 0 && c.PartitionPriority == "" {
		return nil
	}
	f := &planner.SiteFactors{Fairshare: e.fsFactor(j.pj.User), Partition: 1}
	if c.PartitionPriority != "" {
		_, f.Partition = e.partPriority(j)
	}
	if c.PriorityWeightQOS > 0 && e.qosHigh()[j.pj.User] {
		f.QOS = 1
	}
	return f
}

// qosHigh is the set of users whose jobs run in QOS high.
func (e *engine) qosHigh() map[string]bool {
	if e.qos == nil {
		tr := &Trace{}
		for i := range e.jobs {
			tr.Jobs = append(tr.Jobs, TraceJob{User: e.jobs[i].pj.User})
		}
		e.qos = PickUsers(tr, e.cfg.Slurm.QOSHigh, e.cfg.Slurm.QOSSeed, 0x716f73) // "qos"
	}
	return e.qos
}

// PickUsers draws round(fraction × the trace's distinct users) of them
// (at least one when fraction > 0), by a shuffle seeded with seed and
// salt: the users of --never-hint and --qos-high.
func PickUsers(tr *Trace, fraction float64, seed, salt uint64) map[string]bool {
	var users []string
	seen := map[string]bool{}
	for _, j := range tr.Jobs {
		if !seen[j.User] {
			seen[j.User] = true
			users = append(users, j.User)
		}
	}
	slices.Sort(users)
	n := int(math.Round(fraction * float64(len(users))))
	if fraction > 0 {
		n = max(1, n)
	}
	rng := rand.New(rand.NewPCG(seed, salt))
	rng.Shuffle(len(users), func(a, b int) { users[a], users[b] = users[b], users[a] })
	out := map[string]bool{}
	for _, u := range users[:min(n, len(users))] {
		out[u] = true
	}
	return out
}

// NeverHint returns a copy of tr in which the jobs of the users drawn by
// PickUsers(fraction, seed) carry no hint (strata simulate --never-hint):
// they are timed from history, like any unhinted job.
func NeverHint(tr *Trace, fraction float64, seed uint64) *Trace {
	if fraction <= 0 {
		return tr
	}
	never := PickUsers(tr, fraction, seed, 0x6e68696e74) // "nhint"
	out := *tr
	out.Jobs = slices.Clone(tr.Jobs)
	for i := range out.Jobs {
		if never[out.Jobs[i].User] {
			out.Jobs[i].NoHint = true
		}
	}
	return &out
}

// userGPUSeconds is each user's GPU-seconds over the run (nil unless the
// run models fairshare).
func (e *engine) userGPUSeconds() map[string]float64 {
	if e.fs == nil || e.cfg.Slurm.PriorityWeightFairshare <= 0 {
		return nil
	}
	out := make(map[string]float64, len(e.fs.total))
	for u, v := range e.fs.total {
		out[u] = round(v, 0)
	}
	return out
}

// accountGPUSeconds is each account's GPU-seconds over the run, every
// account listed (nil unless the run models fairshare): what the fairshare
// error compares with the accounts' equal shares.
func (e *engine) accountGPUSeconds() map[string]float64 {
	if e.fs == nil || e.cfg.Slurm.PriorityWeightFairshare <= 0 {
		return nil
	}
	out := map[string]float64{}
	for u, a := range e.fs.account {
		out[a] += e.fs.total[u]
	}
	for a, v := range out {
		out[a] = round(v, 0)
	}
	return out
}

// userGroups lists the users in QOS high and the users none of whose jobs
// carries a hint, when the run models the site's policy (nil otherwise).
func (e *engine) userGroups() (qos, never []string) {
	c := &e.cfg.Slurm
	if c.PriorityWeightFairshare <= 0 && c.PriorityWeightQOS <= 0 {
		return nil, nil
	}
	if c.PriorityWeightQOS > 0 {
		for u := range e.qosHigh() {
			qos = append(qos, u)
		}
		slices.Sort(qos)
	}
	hinted := map[string]bool{}
	for i := range e.jobs {
		j := &e.jobs[i]
		hinted[j.pj.User] = hinted[j.pj.User] || !j.tj.NoHint
	}
	for u, h := range hinted {
		if !h {
			never = append(never, u)
		}
	}
	slices.Sort(never)
	return qos, never
}
