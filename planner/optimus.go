package planner

import (
	"container/heap"
	"context"
	"math"
	"sort"
	"time"
)

// Optimus is the greedy marginal-gain allocator of Optimus (Peng et al.,
// EuroSys'18) on SMD's time model: every job (running or pending, oldest
// first) gets its minimum allocation while GPUs last; then, repeatedly, the
// job whose next step on its worker grid cuts its remaining time the most
// per added GPU gets that step, until GPUs run out or no step helps. The
// PS count for w workers is the one with the shortest time. Running jobs
// it may resize compete too: in the simulator's ideal mode
// (Options.Reshape) every running job, whose changed allocation is an
// ActionResize in place; on Slurm only preemptible jobs (Preemptible),
// whose changed allocation is an ActionPreempt at the new size (they
// checkpoint, requeue themselves and restart at it; reason
// resized_restart). Other running jobs keep their GPUs.
type Optimus struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
}

var _ Policy = (*Optimus)(nil)

// Plan implements Policy.
func (p *Optimus) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	return planIslands(ctx, s, &p.o, &p.memo, "optimus", func(c *cycle, isl *island) []*planned {
		return c.optimusIsland(isl)
	})
}

// optJob is a job's state during the greedy allocation.
type optJob struct {
	ji   *jobInfo
	grid []int   // worker counts with a feasible shape, ascending
	at   int     // index into grid of the current allocation, -1 = none
	frac float64 // remaining fraction of the work
}

func (c *cycle) remaining(oj *optJob, w int) float64 {
	_, d, _ := c.bestPS(oj.ji, w)
	return d.Seconds() * oj.frac
}

// bestPS is the PS count with the shortest time for w workers, with that
// time and its reason (the time model is evaluated once per PS count).
func (c *cycle) bestPS(ji *jobInfo, w int) (int, time.Duration, Reason) {
	best, bestS := 0, math.Inf(1)
	var bestD time.Duration
	var bestR Reason
	for _, p := range psGrid(ji, w) {
		if d, r := c.durationAt(ji, w, p); d.Seconds() < bestS {
			best, bestS, bestD, bestR = p, d.Seconds(), d, r
		}
	}
	if math.IsInf(bestS, 1) { // no PS count gave a time: as before, ask for p = 0
		bestD, bestR = c.durationAt(ji, w, 0)
	}
	return best, bestD, bestR
}

func (c *cycle) optimusIsland(isl *island) []*planned {
	jobs := c.optimusJobs(isl)
	budget, _, _ := c.free(isl)
	for _, ji := range isl.running {
		if ji.canPreempt {
			budget += ji.req
		}
	}
	for _, oj := range jobs { // minimum allocations, running jobs and oldest first
		if len(oj.grid) > 0 && oj.grid[0] <= budget && oj.ji.notYet == 0 {
			oj.at, budget = 0, budget-oj.grid[0]
		}
	}
	h := &gainHeap{}
	for _, oj := range jobs {
		c.pushGain(h, oj)
	}
	for h.Len() > 0 {
		g := heap.Pop(h).(gain)
		step := g.oj.grid[g.oj.at+1] - g.oj.grid[g.oj.at]
		if step > budget {
			continue
		}
		budget -= step
		g.oj.at++
		c.pushGain(h, g.oj)
	}
	return c.optimusDecisions(isl, jobs)
}

// optimusJobs lists running then pending jobs (oldest first) with grids.
func (c *cycle) optimusJobs(isl *island) []*optJob {
	var out []*optJob
	all := isl.jobs
	var run []*jobInfo // running jobs that compete for GPUs too
	for _, ji := range isl.running {
		if ji.canPreempt {
			run = append(run, ji)
		}
	}
	if len(run) > 0 {
		all = append(run, isl.jobs...)
	}
	for _, ji := range all {
		oj := &optJob{ji: ji, at: -1, frac: 1}
		for _, w := range workerGrid(ji, isl.maxGPN, c.o.MaxOptionsPerJob) {
			if _, ok := c.shapeFor(isl, w, ji.cpuPerW, ji.memPerW); ok || ji.fixed {
				oj.grid = append(oj.grid, w)
			}
		}
		oj.frac = c.workLeft(ji) // a requeued job has done part of its work
		running := ji.job.State == JobRunning
		if running && oj.frac == 1 {
			_, d, _ := c.bestPS(ji, max(1, ji.req))
			done := ji.job.AttainedGPUSeconds / (d.Seconds() * float64(max(1, ji.req)))
			oj.frac = math.Min(1, math.Max(0.05, 1-done))
		}
		if tl := ji.job.TimeLimit; tl > 0 && (!running || !c.o.Reshape) && len(oj.grid) > 1 {
			// Slurm kills a job at its time limit (each run of a requeued
			// job: what is left must fit): never a size too slow for it. A
			// running job may always keep its size.
			fastest := oj.grid[len(oj.grid)-1]
			kept := oj.grid[:0]
			for _, w := range oj.grid {
				if _, d, _ := c.bestPS(ji, w); seconds(d.Seconds()*oj.frac) <= tl || running && w == ji.req {
					kept = append(kept, w)
				}
			}
			if len(kept) == 0 {
				kept = append(kept, fastest)
			}
			oj.grid = kept
		}
		out = append(out, oj)
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a].ji, out[b].ji
		if (x.job.State == JobRunning) != (y.job.State == JobRunning) {
			return x.job.State == JobRunning
		}
		return x.job.SubmitTime.Before(y.job.SubmitTime)
	})
	return out
}

func (c *cycle) pushGain(h *gainHeap, oj *optJob) {
	if oj.at < 0 || oj.at+1 >= len(oj.grid) {
		return
	}
	w0, w1 := oj.grid[oj.at], oj.grid[oj.at+1]
	if g := (c.remaining(oj, w0) - c.remaining(oj, w1)) / float64(w1-w0); g > 0 {
		heap.Push(h, gain{oj: oj, v: g})
	}
}

type gain struct {
	oj *optJob
	v  float64
}

type gainHeap []gain

func (h gainHeap) Len() int { return len(h) }
func (h gainHeap) Less(i, j int) bool {
	if h[i].v != h[j].v {
		return h[i].v > h[j].v
	}
	return h[i].oj.ji.job.ID < h[j].oj.ji.job.ID
}
func (h gainHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *gainHeap) Push(x any)   { *h = append(*h, x.(gain)) }
func (h *gainHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// optimusDecisions turns the allocation into decisions, placing running
// jobs' new sizes first and then pending jobs (smaller grid steps when
// fragmentation prevents the chosen shape).
func (c *cycle) optimusDecisions(isl *island, jobs []*optJob) []*planned {
	var out []*planned
	for _, oj := range jobs {
		ji := oj.ji
		if ji.job.State == JobRunning {
			out = append(out, c.optimusRunning(oj))
			continue
		}
		pl := c.newPlanned(ji)
		pl.key = float64(ji.job.SubmitTime.Unix())
		out = append(out, pl)
		for k := oj.at; k >= 0; k-- {
			w := oj.grid[k]
			sh, ok := c.shapeFor(isl, w, ji.cpuPerW, ji.memPerW)
			if ji.fixed {
				sh, ok = c.jobShape(ji)
			}
			if !ok {
				continue
			}
			p, d, r := c.bestPS(ji, w)
			if s, q, ok := c.withServers(ji, sh, p); ok && q != p {
				p, sh = q, s
				d, r = c.durationAt(ji, w, p)
			} else if ok {
				sh = s
			}
			pl.w, pl.p, pl.sh, pl.dur = w, p, sh, d
			pl.reasons = append(sizeReasons(ji, w), r)
			if nodes, ok := c.place(isl, sh, ji.cpuPerW, ji.memPerW); ok {
				pl.start, pl.nodes = true, nodes
				pl.reasons = append([]Reason{ReasonAdmitted}, pl.reasons...)
				break
			}
		}
		if len(oj.grid) == 0 {
			pl.reasons = append([]Reason{ReasonNoShapeFits}, sizeReasons(ji, pl.w)...)
			continue
		}
		if !pl.start {
			if pl.dur == 0 {
				pl.dur, _ = c.durationAt(ji, max(1, pl.w), max(1, pl.p))
			}
			r := ReasonWaitResources
			if ji.notYet > 0 {
				r = ReasonBeginTime
			}
			pl.reasons = append([]Reason{r}, sizeReasons(ji, pl.w)...)
		}
	}
	return out
}

// optimusRunning resizes a running job when its allocation changed and
// the new shape can be placed; otherwise it keeps running as it is.
func (c *cycle) optimusRunning(oj *optJob) *planned {
	ji := oj.ji
	pl := c.keepDecision(ji)
	if oj.at < 0 || oj.grid[oj.at] == ji.req {
		return pl
	}
	w := oj.grid[oj.at]
	sh, ok := c.shapeFor(ji.isl, w, ji.cpuPerW, ji.memPerW)
	if !ok {
		return pl
	}
	if !c.o.Reshape { // on Slurm: stop it; it restarts at w when Slurm starts it again
		p, d, _ := c.bestPS(ji, w)
		pl.action, pl.w, pl.p, pl.sh, pl.dur = ActionPreempt, w, p, sh, d
		pl.reasons = []Reason{ReasonResizedRestart}
		ji.leaving = true
		return pl
	}
	c.releaseRunning(ji)
	nodes, ok := c.place(ji.isl, sh, ji.cpuPerW, ji.memPerW)
	if !ok {
		c.holdRunning(ji)
		return pl
	}
	p, d, _ := c.bestPS(ji, w)
	pl.action, pl.w, pl.p, pl.sh, pl.nodes, pl.dur = ActionResize, w, p, sh, nodes, d
	pl.reasons = []Reason{ReasonResized}
	return pl
}
