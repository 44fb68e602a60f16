package slurm

import (
	"time"

	"github.com/strata-hpc/strata/planner"
)

// EndedRuns remembers which of the runs slurmctld lists as ended
// (Snapshot.Ended, kept for MinJobAge) were handled, so that each is
// handled once however many snapshots list it: New returns those not
// marked yet, Mark marks them. A run slurmctld no longer lists is
// forgotten. The daemon records ended runs with it, marking them once
// stored; the collector's Slurm mapper at once.
type EndedRuns struct {
	seen map[endedRun]bool
}

type endedRun struct {
	id  int64
	end time.Time
}

// New returns the runs of ended not marked yet that keep lets through
// (nil: all), and forgets the marked runs ended no longer lists.
func (e *EndedRuns) New(ended []planner.Job, keep func(planner.Job) bool) []planner.Job {
	listed := make(map[endedRun]bool, len(ended))
	var out []planner.Job
	for _, j := range ended {
		k := endedRun{j.ID, j.EndTime}
		listed[k] = true
		if !e.seen[k] && (keep == nil || keep(j)) {
			out = append(out, j)
		}
	}
	for k := range e.seen {
		if !listed[k] {
			delete(e.seen, k)
		}
	}
	return out
}

// Mark marks jobs as handled.
func (e *EndedRuns) Mark(jobs []planner.Job) {
	if e.seen == nil {
		e.seen = map[endedRun]bool{}
	}
	for _, j := range jobs {
		e.seen[endedRun{j.ID, j.EndTime}] = true
	}
}
