package planner

import (
	"fmt"
	"math"
)

// PriorityMode says how the plan's start order enters Slurm
// (Options.PriorityMode; docs/slurm.md, "Priority modes").
type PriorityMode string

// Priority modes.
const (
	// PriorityNice writes each ranked job's nice, spread over
	// [-NiceBand, +NiceBand] by rank (the best rank most negative).
	// slurmctld subtracts the nice from the multifactor priority, so age,
	// fairshare, QOS, partition tier and job size keep counting, and sprio
	// shows Strata's part in its NICE column. The default.
	PriorityNice PriorityMode = "nice"
	// PriorityAbsolute writes each ranked job's priority itself,
	// PriorityBase + (N-r)·PriorityStep: Strata's order replaces the
	// site's multifactor priority for the jobs it ranks.
	PriorityAbsolute PriorityMode = "absolute"
)

// DefaultNiceBand is the nice band unless the site sets one: measured in
// docs/evaluation.d/accountability/30-site-policy.md.
const DefaultNiceBand int64 = 4000

// NiceBandNone, as Options.NiceBand, is a band of 0: every ranked job gets
// nice 0 (Strata shapes jobs but writes no order).
const NiceBandNone int64 = -1

// band is the nice band in effect (0 for NiceBandNone).
func (o *Options) band() int64 {
	if o.NiceBand < 0 {
		return 0
	}
	return o.NiceBand
}

// rankWrite is what realises start rank r (1 = first) of n ranked jobs:
// in the absolute mode the priority PriorityBase + (n−r)·PriorityStep, in
// the nice mode the nice −band + 2·band·(r−1)/(n−1), rounded (a lone job
// gets −band).
func (o *Options) rankWrite(r int, n int64) (priority int64, nice *int64) {
	if o.PriorityMode == PriorityAbsolute {
		return o.PriorityBase + (n-int64(r))*o.PriorityStep, nil
	}
	b := o.band()
	v := -b
	if n > 1 {
		v += (2*b*int64(r-1) + (n-1)/2) / (n - 1)
	}
	return 0, &v
}

// siteOutranks says, in the nice mode, whether slurmctld will rank a job
// ahead of every job ranked before it in its island: its site priority
// less the nice Strata writes for its rank exceeds theirs. Strata must not
// hold such a job back with a begin time: Slurm would start it before them
// whatever the plan says, so the deferral would only overrule the site
// (and idle the GPUs it keeps free for jobs Slurm will not start first).
// ahead holds the highest such priority ranked so far per island, n the
// number of ranked jobs; it is updated with pl. Jobs without a known site
// priority never outrank.
func (c *cycle) siteOutranks(ahead map[*island]int64, pl *planned, n int64) bool {
	if c.o.PriorityMode != PriorityNice || c.siteMax <= 0 || pl.rank <= 0 {
		return false
	}
	p := pl.ji.job.SitePriority
	if p <= 0 {
		return false
	}
	_, nice := c.o.rankWrite(pl.rank, n)
	eff := p - *nice
	isl := pl.ji.isl
	most, seen := ahead[isl]
	ahead[isl] = max(most, eff)
	return seen && eff > most
}

// siteMaxPriority is the largest site priority (Job.SitePriority) of a
// pending job in s, the scale of siteFactor; 0 in the absolute mode, where
// Strata's own writes fix the priorities it would read.
func siteMaxPriority(s *Snapshot, o *Options) int64 {
	if o.PriorityMode == PriorityAbsolute {
		return 0
	}
	var most int64
	for i := range s.Jobs {
		if j := &s.Jobs[i]; j.State == JobPending {
			most = max(most, j.SitePriority)
		}
	}
	return most
}

// siteFactor scales a job's weight in the objective by the site's
// priority of it, in [1, 2]. The job's own multifactor priority wins where
// it is known (the nice mode: SitePriority, Slurm's own sum with the
// site's weights, age and size included): 1 + SitePriority / the largest
// in the snapshot, so a job the site ranks first weighs twice one it ranks
// last. Otherwise (the absolute mode, a held job) the site's policy read
// beside the job (Job.Site) counts: 1 + its weighted factors. Running
// jobs, and jobs with neither, weigh 1×.
func (c *cycle) siteFactor(j *Job) float64 {
	if j.State != JobPending {
		return 1
	}
	protect := 1.0
	if j.Site != nil {
		protect += c.o.SiteWeights.Protect * c.o.SiteWeights.combine(*j.Site)
	}
	if c.siteMax > 0 && j.SitePriority > 0 {
		return protect * (1 + float64(min(j.SitePriority, c.siteMax))/float64(c.siteMax))
	}
	if j.Site != nil {
		return protect * (1 + c.o.SiteWeights.combine(*j.Site))
	}
	return 1
}

// unweighed says whether a pending job needs the site's policy for its
// weight (its own priority is not known) and it could not be read
// (Job.SiteUnread): such a job is left untouched for the cycle
// (ReasonSiteUnread), never ranked as if the site had no policy.
func (c *cycle) unweighed(j *Job) bool {
	return j.State == JobPending && j.SiteUnread != "" && j.Site == nil &&
		!(c.siteMax > 0 && j.SitePriority > 0)
}

// SiteFactors are the parts of the site's multifactor policy for one job,
// each normalized as slurmctld does (0 to 1): its association's fairshare
// factor (slurmrestd's /shares, classic or fair tree as the site runs it),
// its QOS's priority over the largest QOS priority, and its partition's
// PriorityJobFactor over the largest.
type SiteFactors struct {
	Fairshare float64 `json:"fairshare"`
	QOS       float64 `json:"qos"`
	Partition float64 `json:"partition"`
}

// SiteWeights weigh SiteFactors (Options.SiteWeights, [planner.site-weights]):
// like slurm.conf's PriorityWeightFairshare, PriorityWeightQOS and
// PriorityWeightPartition, only their ratios count. All zero: equal.
type SiteWeights struct {
	Fairshare float64 `json:"fairshare,omitempty"`
	QOS       float64 `json:"qos,omitempty"`
	Partition float64 `json:"partition,omitempty"`
	// Protect scales a pending job's weight further by 1 + Protect × its
	// weighted site factors (Job.Site), whichever input gives the rest:
	// the users below their share and those who pay for a higher QOS,
	// who would otherwise pay for the others' gain, weigh more. 0 (the
	// default): off.
	Protect float64 `json:"protect,omitempty"`
}

func (w SiteWeights) validate() error {
	for _, v := range []float64{w.Fairshare, w.QOS, w.Partition, w.Protect} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("site weights %+v: each must be a number ≥ 0", w)
		}
	}
	return nil
}

// combine is the weighted mean of f, in [0, 1].
func (w SiteWeights) combine(f SiteFactors) float64 {
	sum := w.Fairshare + w.QOS + w.Partition
	if sum <= 0 {
		w, sum = SiteWeights{Fairshare: 1, QOS: 1, Partition: 1}, 3
	}
	v := (w.Fairshare*clamp01(f.Fairshare) + w.QOS*clamp01(f.QOS) + w.Partition*clamp01(f.Partition)) / sum
	return v
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return min(1, max(0, v))
}
