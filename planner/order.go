package planner

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"sort"
	"time"
)

// planned is a policy's answer for one job before ranks are assigned.
type planned struct {
	ji      *jobInfo
	action  Action
	start   bool
	w, p    int
	sh      shape
	nodes   []int
	dur     time.Duration
	key     float64 // order within the ranked jobs: lower first
	reasons []Reason
	detail  string
	ranked  bool // gets a rank and a priority
}

// newPlanned starts the plan of a pending job at its requested size: an
// update with a rank, or a keep without one for jobs that must not change
// (they still take capacity when Slurm starts them).
func (c *cycle) newPlanned(ji *jobInfo) *planned {
	sh, _ := c.sizeShape(ji)
	pl := &planned{ji: ji, action: ActionUpdate, ranked: true, w: ji.size, p: psFor(ji, ji.size), sh: sh}
	if ji.keep {
		pl.action, pl.ranked = ActionKeep, false
		if ji.hintErr != nil {
			pl.detail = ji.hintErr.Error()
		}
	}
	return pl
}

// keepDecision is the plan of a job the policy must not touch.
func (c *cycle) keepDecision(ji *jobInfo) *planned {
	sh, _ := c.jobShape(ji)
	pl := &planned{ji: ji, action: ActionKeep, w: ji.req, sh: sh}
	switch {
	case ji.isl == nil:
		pl.reasons = []Reason{ReasonPartitionUnknown}
		pl.detail = fmt.Sprintf("partition %q is not in the snapshot", ji.job.Partition)
	case ji.req == 0:
		pl.reasons = []Reason{ReasonNoGPUs}
	case ji.hintErr != nil:
		pl.reasons = []Reason{ReasonHintInvalid}
		pl.detail = ji.hintErr.Error()
	case ji.job.State == JobRunning:
		pl.reasons = []Reason{ReasonRunning}
	default:
		pl.reasons = []Reason{ReasonRewriteOptOut}
	}
	return pl
}

// sizeReasons explains why the GPU count is what it is.
// Jobs the planner must not change get their keep reason instead.
func sizeReasons(ji *jobInfo, w int) []Reason {
	switch {
	case ji.hintErr != nil:
		return []Reason{ReasonHintInvalid}
	case ji.keep:
		return []Reason{ReasonRewriteOptOut}
	case !ji.hasHint:
		return []Reason{ReasonNoHint}
	case ji.fixed:
		return []Reason{ReasonFixedGPUs}
	case w != ji.req:
		return []Reason{ReasonAllocationChanged}
	}
	return nil
}

// finalize assigns ranks, priorities and predicted times, and builds the
// Plan. Ranked plans are ordered by (start now first, aged first, key,
// job ID); rank r gets PriorityBase + (N−r)·PriorityStep.
func (c *cycle) finalize(name string, pls []*planned) Plan {
	var ranked []*planned
	for _, pl := range pls {
		if pl.ranked {
			ranked = append(ranked, pl)
		}
	}
	sort.SliceStable(ranked, func(a, b int) bool {
		x, y := ranked[a], ranked[b]
		switch {
		case x.start != y.start:
			return x.start
		case x.ji.aged != y.ji.aged:
			return x.ji.aged
		case x.key != y.key:
			return x.key < y.key
		}
		return x.ji.job.ID < y.ji.job.ID
	})
	ranks := make(map[*planned]int, len(ranked))
	for r, pl := range ranked {
		ranks[pl] = r + 1
	}
	starts := c.predictStarts(ranked)
	n := int64(len(ranked))
	out := Plan{SnapshotID: c.s.ID, Policy: name, Decisions: make([]Decision, 0, len(pls))}
	for _, pl := range pls {
		d := Decision{JobID: pl.ji.job.ID, Action: pl.action, Start: pl.start, Workers: pl.w, PS: pl.p,
			GPUsPerNode: pl.sh.gpn, NodeCount: pl.sh.nodes, Placement: c.nodeNames(pl.nodes),
			Reasons: pl.reasons, Detail: pl.detail}
		if len(d.Placement) == 0 {
			d.Placement = nil
		}
		if r, ok := ranks[pl]; ok {
			d.Rank = r
			d.Priority = c.o.PriorityBase + (n-int64(r))*c.o.PriorityStep
			if pl.ji.aged {
				d.Reasons = append(d.Reasons, ReasonAged)
			}
		}
		if st, ok := starts[pl]; ok && pl.dur > 0 {
			d.PredictedStart, d.PredictedEnd = st, st.Add(pl.dur)
			if dl := pl.ji.deadline; !dl.IsZero() && d.PredictedEnd.After(dl) {
				d.Reasons = append(d.Reasons, ReasonDeadlineRisk)
			}
		}
		if len(d.Reasons) == 0 {
			d.Reasons = []Reason{ReasonWaitResources}
		}
		out.Decisions = append(out.Decisions, d)
	}
	slices.SortFunc(out.Decisions, func(x, y Decision) int {
		if c := cmp.Compare(x.Rank, y.Rank); c != 0 {
			return c
		}
		return cmp.Compare(x.JobID, y.JobID)
	})
	return out
}

// release event for the start-time estimate.
type gpuEvent struct {
	at   time.Time
	gpus int
}

type eventHeap []gpuEvent

func (h eventHeap) Len() int           { return len(h) }
func (h eventHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h eventHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)        { *h = append(*h, x.(gpuEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// predictStarts estimates start times per island: jobs starting now start
// at Now; the others start in rank order when enough GPUs are released by
// running and earlier jobs (aggregate GPUs; fragmentation, CPUs and memory
// ignored, no backfill). Jobs that can never get enough GPUs get none.
func (c *cycle) predictStarts(ranked []*planned) map[*planned]time.Time {
	out := make(map[*planned]time.Time, len(ranked))
	type state struct {
		free int
		ev   eventHeap
		last time.Time
	}
	st := map[*island]*state{}
	for _, isl := range c.islands {
		s := &state{last: c.s.Now}
		s.free, _, _ = c.free(isl)
		for _, ji := range isl.running {
			s.ev = append(s.ev, gpuEvent{at: c.runningEnd(ji), gpus: ji.req})
		}
		heap.Init(&s.ev)
		st[isl] = s
	}
	for _, pl := range ranked {
		s := st[pl.ji.isl]
		if s == nil {
			continue
		}
		if pl.start {
			out[pl] = c.s.Now
			heap.Push(&s.ev, gpuEvent{at: c.s.Now.Add(pl.dur), gpus: pl.w})
			continue
		}
		t := s.last
		for s.free < pl.w && s.ev.Len() > 0 {
			e := heap.Pop(&s.ev).(gpuEvent)
			s.free += e.gpus
			if e.at.After(t) {
				t = e.at
			}
		}
		if s.free < pl.w {
			continue
		}
		s.free -= pl.w
		s.last = t
		out[pl] = t
		heap.Push(&s.ev, gpuEvent{at: t.Add(pl.dur), gpus: pl.w})
	}
	return out
}

// runningEnd predicts when a running job ends: start + predicted duration
// on its GPUs, at least one interval from now.
func (c *cycle) runningEnd(ji *jobInfo) time.Time {
	d, _ := c.durationAt(ji, max(1, ji.req), max(1, ji.pmin))
	end := ji.job.StartTime.Add(d)
	if ji.job.StartTime.IsZero() {
		end = c.s.Now.Add(d)
	}
	if min := c.s.Now.Add(c.o.Interval); end.Before(min) {
		end = min
	}
	return end
}
