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
const DefaultNiceBand int64 = 2000

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

// siteOutranks says, in the nice mode, whether the site's own priority of
// a ranked job exceeds that of every job ranked ahead of it in its island
// by more than the nice band's reach (2·band): slurmctld would start it
// before them whatever nice Strata wrote, so Strata must not hold it back
// with a begin time either (a deferral would overrule the site). ahead
// holds the highest site priority ranked so far per island; it is updated
// with pl.
func (c *cycle) siteOutranks(ahead map[*island]int64, pl *planned) bool {
	if c.o.PriorityMode != PriorityNice || c.siteMax <= 0 {
		return false
	}
	isl, p := pl.ji.isl, pl.ji.job.SitePriority
	most, seen := ahead[isl]
	ahead[isl] = max(most, p)
	return seen && p > 0 && p > most+2*c.o.band()
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
