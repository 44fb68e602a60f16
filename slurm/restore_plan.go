package slurm

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// SkippedChanged is the outcome of a job `strata restore` leaves alone
// because its user or an admin changed a field Strata wrote since Strata's
// last write: putting back the user's original would undo their change.
const SkippedChanged decide.Outcome = "skipped-changed"

// Trail is what the audit trail recorded of one job (db.JobTrail): the job
// as Strata first recorded it, before any write of Strata's, and the
// bodies of Strata's writes that took effect, oldest first.
type Trail struct {
	FirstGPUs      int
	FirstPartition string
	FirstPriority  int64
	Applied        []string
}

// lastWrite is what Strata's applied writes last set, field by field
// (zero or nil: never written).
type lastWrite struct {
	priority                int64
	tresPerNode, tresPerJob *string
	nodes                   int
	limitMinutes            int
	// nice: Strata wrote a nice value (a relative priority) instead.
	nice bool
	// tasks: Strata wrote a parameter-server job's task count.
	tasks bool
}

// writtenBody is the part of an update body (descV0042) restore compares.
type writtenBody struct {
	Priority *struct {
		Number *int64 `json:"number"`
	} `json:"priority"`
	TresPerNode  *string `json:"tres_per_node"`
	TresPerJob   *string `json:"tres_per_job"`
	MinimumNodes *int    `json:"minimum_nodes"`
	Nice         *int64  `json:"nice"`
	Tasks        *int    `json:"tasks"`
	TimeLimit    *struct {
		Number *int64 `json:"number"`
	} `json:"time_limit"`
}

// last reads what Strata's applied writes last set.
func (t Trail) last() (lastWrite, error) {
	var lw lastWrite
	for i, body := range t.Applied {
		var b writtenBody
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			return lw, fmt.Errorf("audit trail: write %d of the job: %w", i+1, err)
		}
		if b.Priority != nil && b.Priority.Number != nil {
			lw.priority = *b.Priority.Number
		}
		if b.TresPerNode != nil {
			lw.tresPerNode = b.TresPerNode
		}
		if b.TresPerJob != nil {
			lw.tresPerJob = b.TresPerJob
		}
		if b.MinimumNodes != nil {
			lw.nodes = *b.MinimumNodes
		}
		lw.nice = lw.nice || b.Nice != nil
		lw.tasks = lw.tasks || b.Tasks != nil
		if b.TimeLimit != nil && b.TimeLimit.Number != nil {
			lw.limitMinutes = int(*b.TimeLimit.Number)
		}
	}
	return lw, nil
}

// restorePlan is what restore would write to one job and why.
type restorePlan struct {
	u        JobUpdate
	restored []string // what is put back, one field each
	notes    []string // what is not, and why
	changed  []string // fields changed since Strata's last write: the job is left alone
}

// restoreFor computes what puts back the user's own request of pending job
// cur from Strata's admin comment segment w and, when there is a database,
// the job's audit trail (nil: none). now is the time begin times are
// compared with.
func restoreFor(cur planner.Job, w decide.Written, trail *Trail, now time.Time) (restorePlan, error) {
	var p restorePlan
	var lw lastWrite
	if trail != nil {
		var err error
		if lw, err = trail.last(); err != nil {
			return p, err
		}
	} else {
		p.notes = append(p.notes, "no audit trail (no database): changes since Strata's last write are "+
			"checked against the admin comment only")
	}
	p.checkChanged(cur, w, trail, lw, now)
	if len(p.changed) > 0 {
		return p, nil
	}
	p.limit(cur, w, lw)
	p.priority(cur, trail, lw)
	p.gpus(cur, trail, lw)
	if !w.Defer.IsZero() && cur.DeferredUntil.After(now) {
		// Slurm moves a begin time in the past to now: the job is eligible again.
		p.u.BeginTime = max(1, cur.SubmitTime.Unix())
		p.restored = append(p.restored, "begin time "+cur.DeferredUntil.UTC().Format(time.RFC3339)+" → now (Strata deferred it)")
	}
	if all := strings.Join(w.Parts, ","); len(w.Parts) > 1 && cur.Partition != all {
		p.u.Partition = &all
		p.restored = append(p.restored, "partition "+cur.Partition+" → "+all+" (the user's list)")
	}
	if ac := withoutSegment(cur.AdminComment); ac != cur.AdminComment {
		p.u.AdminComment = &ac
		p.restored = append(p.restored, "admin comment: Strata's segment removed")
	}
	return p, nil
}

// checkChanged lists the fields Strata wrote that differ from what it last
// wrote: its user or an admin changed them since.
func (p *restorePlan) checkChanged(cur planner.Job, w decide.Written, trail *Trail, lw lastWrite, now time.Time) {
	if w.Limit > 0 {
		switch {
		case cur.TimeLimit == w.Limit: // the user's own again: nothing to put back
		case lw.limitMinutes > 0 && cur.TimeLimit != time.Duration(lw.limitMinutes)*time.Minute:
			p.changed = append(p.changed, fmt.Sprintf("time limit %s, Strata wrote %s",
				decide.SlurmTime(cur.TimeLimit), decide.SlurmTime(time.Duration(lw.limitMinutes)*time.Minute)))
		case cur.TimeLimit > w.Limit:
			p.changed = append(p.changed, fmt.Sprintf("time limit %s, above the user's own %s",
				decide.SlurmTime(cur.TimeLimit), decide.SlurmTime(w.Limit)))
		}
	}
	if lw.priority > 0 && !decide.IsHeld(cur) && cur.Priority != lw.priority {
		p.changed = append(p.changed, fmt.Sprintf("priority %d, Strata wrote %d", cur.Priority, lw.priority))
	}
	if lw.tresPerNode != nil {
		if g, err := parseTRESGPU(*lw.tresPerNode); err == nil && cur.GPUsPerNode != g.Count {
			p.changed = append(p.changed, fmt.Sprintf("%d GPUs per node, Strata wrote %d", cur.GPUsPerNode, g.Count))
		}
	}
	if lw.tresPerJob != nil {
		if g, err := parseTRESGPU(*lw.tresPerJob); err == nil && cur.GPUsPerJob != g.Count {
			p.changed = append(p.changed, fmt.Sprintf("%d GPUs per job, Strata wrote %d", cur.GPUsPerJob, g.Count))
		}
	}
	if lw.nodes > 0 && cur.Nodes != lw.nodes {
		p.changed = append(p.changed, fmt.Sprintf("%d nodes, Strata wrote %d", cur.Nodes, lw.nodes))
	}
	if !w.Defer.IsZero() && w.Defer.After(now) && !cur.DeferredUntil.Equal(w.Defer) {
		p.changed = append(p.changed, "begin time changed, Strata deferred it to "+w.Defer.UTC().Format(time.RFC3339))
	}
	if len(w.Parts) > 1 && cur.Partition != strings.Join(w.Parts, ",") && !slices.Contains(w.Parts, cur.Partition) {
		p.changed = append(p.changed, fmt.Sprintf("partition %s, not one of the user's %s", cur.Partition, strings.Join(w.Parts, ",")))
	}
}

// limit puts back the time limit the user asked for (the admin comment's
// limit=) when Strata lowered it.
func (p *restorePlan) limit(cur planner.Job, w decide.Written, lw lastWrite) {
	if w.Limit <= 0 && lw.limitMinutes > 0 {
		p.notes = append(p.notes, fmt.Sprintf("time limit: Strata lowered it to %s and no admin comment keeps the user's own "+
			"(its Slurm user may not write admin comments); left as it is: put it back by hand",
			decide.SlurmTime(time.Duration(lw.limitMinutes)*time.Minute)))
		return
	}
	if w.Limit <= 0 || cur.TimeLimit >= w.Limit {
		return
	}
	p.u.TimeLimitMinutes = limitMinutes(w.Limit)
	p.restored = append(p.restored, fmt.Sprintf("time limit %s → %s (the user's own)",
		decide.SlurmTime(cur.TimeLimit), decide.SlurmTime(w.Limit)))
}

// priority hands the priority back to Slurm's priority plugin, unless the
// job is held (a release is its owner's or an admin's to make) or the
// audit trail shows Strata never wrote one. The same reset sets a nice
// value Strata wrote back to 0 (slurmctld resets nice with any priority
// it is sent).
func (p *restorePlan) priority(cur planner.Job, trail *Trail, lw lastWrite) {
	switch {
	case decide.IsHeld(cur):
		p.notes = append(p.notes, "priority: the job is held ("+cur.Reason+"); Slurm computes its priority again when it is released")
	case trail != nil && lw.priority == 0 && !lw.nice:
		// Strata never wrote a priority (or nice value) to this job.
	default:
		p.u.ResetPriority = true
		p.restored = append(p.restored, fmt.Sprintf("priority %d → Slurm's own (priority plugin)", cur.Priority))
	}
}

// gpus puts back the GPU request the user submitted (the audit trail's
// first record of the job), its CPUs and memory scaled back with it.
func (p *restorePlan) gpus(cur planner.Job, trail *Trail, lw lastWrite) {
	if trail == nil {
		p.notes = append(p.notes, "GPU request: not known without the audit trail (the admin comment records only "+
			"what Strata wrote); left as it is")
		return
	}
	if lw.tresPerNode == nil && lw.tresPerJob == nil && lw.nodes == 0 {
		return // Strata never changed the job's GPU request
	}
	want, have := trail.FirstGPUs, cur.GPUs()
	switch {
	case want <= 0:
		p.notes = append(p.notes, "GPU request: the audit trail does not record the user's; left as it is")
		return
	case cur.GPUsPerTask > 0:
		p.notes = append(p.notes, "GPU request: per task, never changed by Strata; left as it is")
		return
	case lw.tasks:
		p.notes = append(p.notes, fmt.Sprintf("GPU request: a parameter-server job whose tasks Strata set (%d tasks now); "+
			"the audit trail keeps only the user's %d GPUs; left as it is: put it back by hand", cur.Tasks, want))
		return
	case lw.nodes > 0:
		p.notes = append(p.notes, fmt.Sprintf("GPU request: Strata set the node count (%d) and the audit trail keeps "+
			"only the user's %d GPUs in total, not their nodes; left as it is: put it back by hand", lw.nodes, want))
		return
	case want == have:
		return
	}
	nodes := max(1, cur.Nodes)
	if cur.GPUsPerJob > 0 && cur.GPUsPerNode == 0 {
		s := withGPUCount(cur.TRESPerJob, cur.GPUType, want)
		p.u.TresPerJob = &s
	} else {
		if want%nodes != 0 {
			p.notes = append(p.notes, fmt.Sprintf("GPU request: the user's %d GPUs do not divide over the job's %d nodes; "+
				"left as it is", want, nodes))
			return
		}
		s := withGPUCount(cur.TRESPerNode, cur.GPUType, want/nodes)
		p.u.TresPerNode = &s
	}
	scaleCPUsAndMemory(&p.u, cur, want, nodes)
	p.restored = append(p.restored, fmt.Sprintf("GPUs %d → %d (the user's request; CPUs and memory scaled with them)", have, want))
}

// withoutSegment is the admin comment ac without Strata's segment, keeping
// what other tools wrote before it (MergeAdminComment always puts the
// segment last).
func withoutSegment(ac string) string {
	i := strings.Index(ac, "strata:")
	if i < 0 {
		return ac
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(ac[:i]), ";"))
}
