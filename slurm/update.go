package slurm

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// jobUpdateFor computes the update that makes pending job cur match d, and
// whether anything differs. now is the snapshot's time (for releasing a
// begin time Strata set).
func jobUpdateFor(cur planner.Job, d planner.Decision, cycle int64, now time.Time) (JobUpdate, bool) {
	var u JobUpdate
	changed := false
	if d.Priority > 0 && d.Priority != cur.Priority {
		u.Priority, changed = d.Priority, true
	}
	old, _ := decide.ParseAdminComment(cur.AdminComment)
	if d.Nice != nil && (*d.Nice != cur.Nice || old.AbsoluteWritten()) {
		n := *d.Nice
		u.Nice, u.ResetPriority, changed = &n, old.AbsoluteWritten(), true
	}
	changed = gpuUpdate(&u, cur, d) || changed
	switch {
	case !d.NotBefore.IsZero() && !d.NotBefore.Equal(cur.DeferredUntil):
		u.BeginTime, changed = d.NotBefore.Unix(), true
	case d.NotBefore.IsZero() && cur.DeferredUntil.After(now):
		// Release the job Strata deferred: a begin time in the past is "now".
		u.BeginTime, changed = max(1, cur.SubmitTime.Unix()), true
	}
	w := decide.Written{Workers: d.Workers, PS: d.PS, Rank: d.Rank, Cycle: cycle, Defer: d.NotBefore,
		Why: decide.WhyOf(d.Reasons), Start: plannedStart(d)} // why and when, for the job's owner
	switch {
	case d.Nice != nil: // the nice mode: the nice written (or kept)
		w.Nice, w.NiceSet = *d.Nice, true
	case old.NiceSet && u.Priority == 0: // a nice written earlier stays on the job
		w.Nice, w.NiceSet = cur.Nice, true
	}
	if old, ok := decide.ParseAdminComment(cur.AdminComment); ok { // what Strata knows of the job's past stays
		w.Signalled, w.NonCooperative, w.Limit = old.Signalled, old.NonCooperative, old.Limit
	}
	// A claim binds the job: its limit is lowered, never raised, and the
	// admin comment keeps the limit the user asked for (the first one).
	if m := limitMinutes(d.TimeLimit); m > 0 && planner.LowersLimit(cur.TimeLimit, time.Duration(m)*time.Minute) {
		u.TimeLimitMinutes, changed = m, true
		if w.Limit == 0 {
			w.Limit = cur.TimeLimit
		}
	}
	if d.Partition != "" && len(cur.Partitions) > 1 { // the user's list, for moving the job again
		w.Parts = cur.Partitions
	}
	if planner.ChangesPartition(cur.Partition, d.Partition) {
		p := d.Partition
		u.Partition, changed = &p, true
	}
	w.Writes = old.Writes
	if ac := decide.MergeAdminComment(cur.AdminComment, w); changed || ac != cur.AdminComment {
		w.Writes++ // this write, counted in Slurm's own record (decide.Written.Writes)
		ac = decide.MergeAdminComment(cur.AdminComment, w)
		u.AdminComment, changed = &ac, true
	}
	return u, changed
}

// gpuUpdate sets u's GPU request (and with it the node count, CPUs and
// memory) from the decision's shape; a per-task request keeps its GPUs.
// It reports whether anything changed.
func gpuUpdate(u *JobUpdate, cur planner.Job, d planner.Decision) bool {
	changed := false
	if d.Tasks > 0 && d.GPUsPerNode > 0 && cur.GPUsPerTask == 0 {
		return psTasksUpdate(u, cur, d)
	}
	if d.GPUsPerNode > 0 && cur.GPUsPerTask == 0 { // a per-task request keeps its GPUs
		nodes := max(1, d.NodeCount)
		// The TRES string is sent also when only the node count changes:
		// Slurm recomputes a --cpus-per-gpu / --mem-per-gpu job's CPU and
		// memory totals only then, and a job moved to fewer nodes with its old
		// totals stays pending forever (BadConstraints; seen in a replay).
		if cur.GPUsPerJob > 0 && cur.GPUsPerNode == 0 {
			if total := d.GPUsPerNode * nodes; total != cur.GPUsPerJob || nodes != cur.Nodes {
				s := withGPUCount(cur.TRESPerJob, cur.GPUType, total)
				u.TresPerJob, changed = &s, true
			}
		} else if d.GPUsPerNode != cur.GPUsPerNode || nodes != cur.Nodes {
			s := withGPUCount(cur.TRESPerNode, cur.GPUType, d.GPUsPerNode)
			u.TresPerNode, changed = &s, true
		}
		if nodes != cur.Nodes {
			// Both bounds: with the minimum alone, a job asked for 2 nodes
			// and planned on 1 would become "1-2" and might still span 2.
			u.MinimumNodes, u.MaximumNodes, changed = nodes, nodes, true
		}
		scaleCPUsAndMemory(u, cur, d.GPUsPerNode*nodes, nodes)
		if d.MemoryPerNodeMB > 0 && !cur.MemoryPerGPU { // the hint's mem= per worker, as planned
			have := u.MemoryPerNodeMB // scaled above, else the job's own
			if have == 0 {
				have = cur.MemoryPerNodeMB
			}
			if d.MemoryPerNodeMB > have {
				u.MemoryPerNodeMB, changed = d.MemoryPerNodeMB, true
			}
		}
	}
	return changed
}

// plannedStart is the start the plan gives d: its predicted start, or its
// begin time when that is later (zero when neither is known).
func plannedStart(d planner.Decision) time.Time {
	if d.NotBefore.After(d.PredictedStart) {
		return d.NotBefore
	}
	return d.PredictedStart
}

// limitMinutes is a time limit in Slurm's whole minutes, rounded up (0:
// none).
func limitMinutes(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Minute - 1) / time.Minute)
}

// scaleCPUsAndMemory scales a per-task CPU and a per-node memory request
// with the job's new GPU count (newGPUs on nodes nodes), as the planner's
// knapsack assumes: 4 GPUs with -c 32 --mem=128G rewritten to 1 GPU ask 8
// CPUs and 32 GiB. Requests per GPU (--cpus-per-gpu, --mem-per-gpu) and per
// CPU (--mem-per-cpu) follow by themselves; a job without -c keeps its CPUs.
func scaleCPUsAndMemory(u *JobUpdate, cur planner.Job, newGPUs, nodes int) {
	oldGPUs := cur.GPUsPerJob
	if cur.GPUsPerNode > 0 {
		oldGPUs = cur.GPUsPerNode * max(1, cur.Nodes)
	}
	if oldGPUs <= 0 || newGPUs == oldGPUs {
		return
	}
	// Both scale by the GPUs each node gets (tasks per node unchanged).
	num, den := int64(newGPUs)*int64(max(1, cur.Nodes)), int64(oldGPUs)*int64(nodes)
	if cur.CPUsPerTask > 1 && !cur.CPUsPerGPU {
		if cpt := int(max(1, (int64(cur.CPUsPerTask)*num+den-1)/den)); cpt != cur.CPUsPerTask {
			total := cpt * max(1, cur.Tasks)
			u.CPUsPerTask, u.MinimumCPUs, u.MinimumCPUsPerNode = cpt, total, max(cpt, (total+nodes-1)/nodes)
		}
	}
	if cur.MemoryPerNodeMB > 0 && !cur.MemoryPerGPU {
		if m := max(1, (cur.MemoryPerNodeMB*num+den-1)/den); m != cur.MemoryPerNodeMB {
			u.MemoryPerNodeMB = m
		}
	}
}

// shapeFits checks cheaply that some NodeCount usable nodes (of the job's
// GPU type, if typed) each have GPUsPerNode GPUs in total. It returns why
// not, or "" when the shape can be held.
func shapeFits(d planner.Decision, gpuType string, nodes []planner.Node) string {
	want := max(1, d.NodeCount)
	fit, most := 0, 0
	for _, n := range nodes {
		if !n.Usable() || gpuType != "" && n.GPUType != gpuType {
			continue
		}
		most = max(most, n.GPUs)
		if n.GPUs >= d.GPUsPerNode {
			fit++
		}
	}
	if fit >= want {
		return ""
	}
	return fmt.Sprintf("%d×%d GPUs fits no usable node set: %d node(s) hold %d GPUs, the largest has %d",
		want, d.GPUsPerNode, fit, d.GPUsPerNode, most)
}

// verify reads job id back and checks that u took effect.
func (c *Client) verify(ctx context.Context, id int64, u JobUpdate) error {
	got, err := c.api.job(ctx, id)
	if err != nil {
		return fmt.Errorf("verify job %d: %w", id, err)
	}
	var diffs []string
	if u.Priority > 0 && got.Priority != u.Priority {
		diffs = append(diffs, fmt.Sprintf("priority %d, want %d", got.Priority, u.Priority))
	}
	if u.Nice != nil && got.Nice != *u.Nice {
		// slurmctld ignores a nice on a job whose priority an operator fixed
		diffs = append(diffs, fmt.Sprintf("nice %d, want %d (a priority set by hand ignores nice)", got.Nice, *u.Nice))
	}
	if u.TresPerNode != nil {
		if g, _ := parseTRESGPU(*u.TresPerNode); got.GPUsPerNode != g.Count {
			diffs = append(diffs, fmt.Sprintf("gpus per node %d, want %d", got.GPUsPerNode, g.Count))
		}
	}
	if u.TresPerJob != nil {
		if g, _ := parseTRESGPU(*u.TresPerJob); got.GPUsPerJob != g.Count {
			diffs = append(diffs, fmt.Sprintf("gpus per job %d, want %d", got.GPUsPerJob, g.Count))
		}
	}
	if u.CPUsPerTask > 0 && got.CPUsPerTask != u.CPUsPerTask {
		diffs = append(diffs, fmt.Sprintf("cpus per task %d, want %d", got.CPUsPerTask, u.CPUsPerTask))
	}
	if u.MemoryPerNodeMB > 0 && got.MemoryPerNodeMB != u.MemoryPerNodeMB {
		diffs = append(diffs, fmt.Sprintf("memory per node %d MB, want %d", got.MemoryPerNodeMB, u.MemoryPerNodeMB))
	}
	if u.Partition != nil && got.Partition != *u.Partition {
		diffs = append(diffs, fmt.Sprintf("partition %q, want %q", got.Partition, *u.Partition))
	}
	if m := u.TimeLimitMinutes; m > 0 && got.TimeLimit != time.Duration(m)*time.Minute {
		diffs = append(diffs, fmt.Sprintf("time limit %v, want %d min", got.TimeLimit, m))
	}
	if u.Tasks > 0 && (max(1, got.Tasks) != u.Tasks || u.TasksPerNode > 0 && got.TasksPerNode != u.TasksPerNode) {
		diffs = append(diffs, fmt.Sprintf("tasks %d (%d per node), want %d (%d per node)", got.Tasks, got.TasksPerNode, u.Tasks, u.TasksPerNode))
	}
	if u.MinimumNodes > 0 && got.Nodes != u.MinimumNodes {
		diffs = append(diffs, fmt.Sprintf("nodes %d, want %d", got.Nodes, u.MinimumNodes))
	}
	// Slurm moves a begin time in the past to now, never earlier.
	begin := got.BeginTime // the user's, or (when the admin comment records it) Strata's
	if got.DeferredUntil.After(begin) {
		begin = got.DeferredUntil
	}
	if b := begin.Unix(); u.BeginTime > 0 && b < u.BeginTime && !(begin.IsZero() && u.BeginTime <= got.SubmitTime.Unix()) {
		diffs = append(diffs, fmt.Sprintf("begin time %v, want %v", begin, time.Unix(u.BeginTime, 0).UTC()))
	}
	if u.AdminComment != nil && got.AdminComment != *u.AdminComment {
		diffs = append(diffs, fmt.Sprintf("admin comment %q, want %q", got.AdminComment, *u.AdminComment))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("verify job %d: read back %v", id, diffs)
	}
	return nil
}

// maxNice is the largest nice slurmrestd takes (NICE_OFFSET − 3; the
// data parser's NICE, data_parser/v0.0.4x/parsers.c).
const maxNice = 1<<31 - 3

// sitePriority is the site's own priority of a job read with priority
// prio and nice nice: the multifactor priority without the nice (Slurm
// subtracts it), 0 when unknown — held (0), at Slurm's floor of 1 (the
// nice may have pushed it there: the factors are then not known), or
// fixed by Strata's absolute mode (w, the job's Strata segment when
// strata).
func sitePriority(prio, nice int64, w decide.Written, strata bool) int64 {
	if prio <= 1 || strata && w.AbsoluteWritten() {
		return 0
	}
	return max(1, prio+nice)
}
