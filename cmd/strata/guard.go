package main

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

// Guard names recorded in the audit trail (db.CycleDecision.Guard).
const (
	guardCycleLimit   = "cycle_limit"
	guardJobCap       = "job_cap"
	guardHystPriority = "hysteresis_priority"
	guardHystGPUs     = "hysteresis_gpus"
	guardOptOut       = "rewrite_opt_out"
	guardNotPending   = "not_pending"
	guardHeld         = "held_job"
)

// guardOptions are the daemon's write limits (design.md §4). They sit
// between the planner, which may propose a change for every pending job,
// and slurm.Apply, which writes whatever it is given.
type guardOptions struct {
	// MaxPerCycle caps the jobs written per cycle (best ranks first).
	MaxPerCycle int
	// MaxPerJob caps how often one job is ever rewritten.
	MaxPerJob int
	// PriorityHysteresis: a priority change smaller than this is not sent.
	PriorityHysteresis int64
	// MinGPUChange: a GPU count change smaller than this is not sent.
	MinGPUChange int
}

// guarded is the daemon's verdict on one decision: Send is the (possibly
// trimmed) decision to pass to Apply; when Write is false, Outcome and Guard
// say why nothing is written.
type guarded struct {
	Send    planner.Decision
	Write   bool
	Outcome string
	Guard   string
}

// guardPlan applies the write limits to a plan, in plan order (rank). jobs
// are the snapshot's jobs by ID; rewrites counts earlier applied rewrites
// per job. It is pure: same inputs, same verdicts.
func guardPlan(p planner.Plan, jobs map[int64]*planner.Job, rewrites map[int64]int, o guardOptions) []guarded {
	out := make([]guarded, 0, len(p.Decisions))
	sent := 0
	for _, d := range p.Decisions {
		g := guardOne(d, jobs[d.JobID], o)
		if g.Write {
			switch {
			case rewrites[d.JobID] >= o.MaxPerJob:
				g.Write, g.Outcome, g.Guard = false, db.OutcomeHeld, guardJobCap
			case sent >= o.MaxPerCycle:
				g.Write, g.Outcome, g.Guard = false, db.OutcomeHeld, guardCycleLimit
			default:
				sent++
			}
		}
		out = append(out, g)
	}
	return out
}

// guardOne decides, for one decision and the job as the snapshot saw it,
// what is worth writing, before the per-job and per-cycle limits.
func guardOne(d planner.Decision, j *planner.Job, o guardOptions) guarded {
	g := guarded{Send: d}
	switch {
	case d.Action != planner.ActionUpdate:
		g.Outcome = db.OutcomeKept
		return g
	case j == nil || j.State != planner.JobPending:
		g.Outcome, g.Guard = db.OutcomeHeld, guardNotPending
		return g
	}
	if strings.HasPrefix(j.Reason, "JobHeld") {
		// Setting a priority would release a held job: never do that.
		g.Outcome, g.Guard = db.OutcomeHeld, guardHeld
		return g
	}
	if optedOut(j.Comment) {
		g.Outcome, g.Guard = db.OutcomeHeld, guardOptOut
		return g
	}
	g.Write = true
	return applyHysteresis(g, *j, o)
}

// applyHysteresis trims one guarded decision against the thresholds of o:
// a GPU change smaller than MinGPUChange and a priority change smaller than
// PriorityHysteresis are dropped (the job keeps its current value). What
// remains is written only when material: a new GPU shape, a new priority,
// or a workers/PS count the job's admin comment does not show yet.
func applyHysteresis(g guarded, j planner.Job, o guardOptions) guarded {
	if !g.Write {
		return g
	}
	d := &g.Send
	cur := j.GPUs()
	gpuChange := false
	if d.GPUsPerNode > 0 {
		want := d.GPUsPerNode * max(1, d.NodeCount)
		shape := want != cur || max(1, d.NodeCount) != max(1, j.Nodes) ||
			(j.GPUsPerJob == 0 && d.GPUsPerNode != j.GPUsPerNode)
		switch {
		case !shape:
			d.GPUsPerNode, d.NodeCount = 0, 0
		case abs(want-cur) < o.MinGPUChange:
			d.GPUsPerNode, d.NodeCount, d.Workers = 0, 0, cur
			g.Guard = guardHystGPUs
		default:
			gpuChange = true
		}
	}
	prioChange := false
	if d.Priority > 0 && d.Priority != j.Priority {
		if abs64(d.Priority-j.Priority) < o.PriorityHysteresis {
			d.Priority = 0
			if g.Guard == "" {
				g.Guard = guardHystPriority
			}
		} else {
			prioChange = true
		}
	} else {
		d.Priority = 0
	}
	ac, ok := parseAdminComment(j.AdminComment)
	commentChange := !ok || ac.Workers != d.Workers || ac.PS != d.PS
	if !gpuChange && !prioChange && !commentChange {
		g.Write, g.Outcome = false, "unchanged"
	}
	return g
}

// optedOut reports a valid hint with rewrite=no. The planner already keeps
// such jobs; this is the daemon's own check. The substring test spares
// parsing every comment of every cycle.
func optedOut(comment string) bool {
	if !containsFold(comment, "rewrite") {
		return false
	}
	h, ok, err := planner.ParseHints(comment)
	return ok && err == nil && h.NoRewrite
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// adminDecision is the content of the admin comment slurm.Apply writes:
// "strata: workers=W ps=P rank=R cycle=C".
type adminDecision struct {
	Workers, PS, Rank int
	Cycle             int64
}

// parseAdminComment reads the strata: segment of a job's admin comment;
// false when there is none or it does not parse.
func parseAdminComment(s string) (adminDecision, bool) {
	i := strings.Index(s, "strata:")
	if i < 0 {
		return adminDecision{}, false
	}
	var a adminDecision
	seen := 0
	for _, tok := range strings.Fields(s[i+len("strata:"):]) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			break
		}
		if k != "workers" && k != "ps" && k != "rank" && k != "cycle" {
			break // the segment ends at the first other key (scontrol output)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return adminDecision{}, false
		}
		switch k {
		case "workers":
			a.Workers = int(n)
		case "ps":
			a.PS = int(n)
		case "rank":
			a.Rank = int(n)
		case "cycle":
			a.Cycle = n
		}
		seen++
	}
	return a, seen > 0
}

// String is the admin comment form, for logs and explain.
