package planner

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
// priority of it: 1 + SitePriority / the largest in the snapshot, so a
// job the site ranks first weighs twice one it ranks last (or does not
// know). Running jobs and jobs without a site priority weigh 1×.
func (c *cycle) siteFactor(j *Job) float64 {
	if c.siteMax <= 0 || j.SitePriority <= 0 || j.State != JobPending {
		return 1
	}
	return 1 + float64(min(j.SitePriority, c.siteMax))/float64(c.siteMax)
}
