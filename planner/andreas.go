package planner

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// DefaultAndreasIterations is the default MaxIt of the andreas policy
// (Options.AndreasIterations): ANDREAS' public code runs 100 randomized
// iterations; BenchmarkAndreasPlan measures what they cost.
const DefaultAndreasIterations = 100

// ANDREAS' parameters (algorithms.md A2.2, A2.3): α, the share of the
// configurations the randomized greedy picks among; π, the bias of its
// adjacent swaps; K, the penalty factor of a postponed job's worst-case
// tardiness.
const (
	andreasAlpha = 0.05
	andreasPi    = 0.05
	andreasK     = 100
)

// Andreas is ANDREAS' randomized greedy (Filippini et al., FiCloud 2021;
// algorithms.md A2) on Strata's model. A job's configurations are the GPU
// counts of its gpus= range on its partition's GPU type (its request alone
// when it has none), timed by the planner's time model. A configuration
// costs the energy it draws (Options.EnergyWeight × kWh at GPUWatts per
// GPU, scaled by the energy= hint) plus its tardiness against deadline=
// (TardinessWeight × weight × seconds late; TardinessWeight 1 when unset).
// Per island, a greedy pass takes the jobs by decreasing pressure (now +
// fastest run time − deadline; jobs without a deadline last) and starts
// each with its cheapest configuration that meets its deadline (else its
// fastest one), trying the next configurations when one does not fit, and
// postpones what fits in no way. Options.AndreasIterations − 1 more passes
// shuffle the order by biased adjacent swaps and pick configurations at
// random among the first ⌈α·n⌉; the pass of least cost wins, where a
// postponed job costs K × its tardiness should it end at now + its slowest
// run time (andreasConfigs has the rules Strata adds, as it cannot change
// running jobs). Randomness is seeded from the snapshot ID (andreas-elastic:
// from the job IDs), so the same snapshot gives the same plan. Not in this port: ANDREAS' node choice among the
// best fits (Strata's best-fit placement is kept) and its post-processing
// (moving jobs to a cheaper node type, giving idle GPUs to a co-located
// job), which need several GPU types per partition or resizing.
type Andreas struct {
	o    Options
	memo memoSlot // per-job cache across calls; never changes a plan
	// elastic (andreas-elastic, with Options.Reshape: the simulator's
	// ideal mode) also re-plans running jobs, as ANDREAS does
	// (andreaselastic.go).
	elastic bool
}

var _ Policy = (*Andreas)(nil)

// Plan implements Policy.
func (a *Andreas) Plan(ctx context.Context, s *Snapshot) (Plan, error) {
	seed := hash64(s.ID)
	name, elastic := "andreas", a.elastic && a.o.Reshape
	if a.elastic {
		name = "andreas-elastic"
	}
	return planIslands(ctx, s, &a.o, &a.memo, name, func(c *cycle, isl *island) []*planned {
		sd := seed
		if elastic { // ANDREAS re-plans at events: the same jobs, the same draws
			sd = jobSetSeed(isl)
		}
		return c.andreasIsland(isl, rand.New(rand.NewPCG(sd, hash64(isl.part.Name))), elastic)
	})
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// aConfig is one configuration of a job: w GPUs (p PS), its shape, run
// time, and costs if it starts now.
type aConfig struct {
	w, p int
	sh   shape
	dur  time.Duration
	r    Reason
	cost float64 // energy + tardiness
}

// aJob is a job the greedy may start.
type aJob struct {
	pl *planned
	// cfgs are the configurations it may start in, in trying order
	// (andreasConfigs).
	cfgs     []aConfig
	pressure float64 // seconds; -Inf without a deadline
	wait     float64 // cost of postponing the job
}

// aPass is the outcome of one greedy pass.
type aPass struct {
	order []int       // indices into the jobs, in the order they were taken
	pick  []int       // per job: its started configuration, -1 = postponed
	nodes [][]int     // per job: the nodes it starts on
	after []nodeState // the island's nodes after the pass
	bb    []int64     // the pools' free space after the pass
	cost  float64
}

// andreasIsland plans one island.
func (c *cycle) andreasIsland(isl *island, rng *rand.Rand, elastic bool) []*planned {
	out, jobs := c.andreasJobs(isl, elastic)
	if len(jobs) == 0 {
		return out
	}
	if elastic {
		return c.andreasElastic(isl, out, jobs, rng)
	}
	best := c.andreasSearch(isl, jobs, rng)
	for k, i := range isl.nodes {
		c.nodes[i] = best.after[k]
	}
	copy(c.bbFree, best.bb)
	for pos, k := range best.order {
		aj := jobs[k]
		pl, ji := aj.pl, aj.pl.ji
		pl.key = float64(pos)
		cf := aj.cfgs[0]
		head := ReasonWaitResources
		if ci := best.pick[k]; ci >= 0 {
			cf, head = aj.cfgs[ci], ReasonAdmitted
			pl.start, pl.nodes = true, best.nodes[k]
		} else if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
			head = ReasonBurstBufferFull
		}
		pl.w, pl.p, pl.sh, pl.dur = cf.w, cf.p, cf.sh, cf.dur
		pl.reasons = append(append([]Reason{head}, sizeReasons(ji, cf.w)...), cf.r)
	}
	return out
}

// andreasBase is the deterministic order: aged jobs first, then by
// decreasing pressure, then by job ID.
func andreasBase(jobs []*aJob) []int {
	base := make([]int, len(jobs))
	for k := range base {
		base[k] = k
	}
	slices.SortStableFunc(base, func(a, b int) int {
		x, y := jobs[a], jobs[b]
		switch {
		case x.pl.ji.aged != y.pl.ji.aged:
			return lessInt(x.pl.ji.aged)
		case x.pressure != y.pressure:
			return lessInt(x.pressure > y.pressure)
		}
		return lessInt(x.pl.ji.job.ID < y.pl.ji.job.ID)
	})
	return base
}

// andreasSearch runs the deterministic pass and AndreasIterations − 1
// randomized ones from the same state and returns the pass of least cost
// (the earliest on ties). The cycle's nodes are left as the last pass left
// them: the caller installs the winner's.
func (c *cycle) andreasSearch(isl *island, jobs []*aJob, rng *rand.Rand) aPass {
	base := andreasBase(jobs)
	saved := c.islandNodes(isl)
	bb := slices.Clone(c.bbFree)
	best := c.andreasPass(isl, jobs, base, nil)
	for it := 1; it < c.o.AndreasIterations; it++ {
		c.restoreIsland(isl, saved, bb)
		if p := c.andreasPass(isl, jobs, andreasShuffle(jobs, base, rng), rng); p.cost < best.cost {
			best = p
		}
	}
	return best
}

// andreasJobs builds the island's planned entries and the jobs the greedy
// may start (those with a configuration that fits the partition and that
// Slurm considers now).
func (c *cycle) andreasJobs(isl *island, elastic bool) ([]*planned, []*aJob) {
	var out []*planned
	var jobs []*aJob
	tw := c.o.TardinessWeight
	if tw == 0 {
		tw = 1
	}
	prof := c.islandProfile(isl)
	for k, ji := range isl.jobs {
		pl := c.newPlanned(ji)
		d, r := c.runAt(ji, max(1, ji.size), psFor(ji, ji.size))
		pl.dur, pl.key = d, float64(len(isl.jobs)+k)
		pl.reasons = append(sizeReasons(ji, ji.size), r)
		out = append(out, pl)
		aj := &aJob{pl: pl}
		c.andreasConfigs(ji, aj, tw*ji.weight, prof, 1)
		switch {
		case len(aj.cfgs) == 0:
			pl.reasons = append([]Reason{ReasonNoShapeFits}, pl.reasons...)
		case ji.notYet > 0:
			pl.reasons = append([]Reason{ji.notYetReason()}, pl.reasons...)
		default:
			jobs = append(jobs, aj)
		}
	}
	if elastic {
		out, jobs = c.andreasRunning(isl, out, jobs, tw, prof)
	}
	return out, jobs
}

// andreasConfigs fills the job's configurations, pressure and postponing
// cost; tw is its tardiness weight, prof the island's GPUs freed over time
// by its running jobs. ANDREAS re-plans running jobs at every event, so a
// poor start costs it one interval; Strata cannot change a running job, so
// a job may start only in a configuration of its class: one that meets
// its deadline (by increasing cost) when any does, else one that ends no
// later than its fastest would after waiting for room (by run time). As
// for smd, configurations longer than the job's time limit are left out
// (Slurm would kill the job), unless all are: then the fastest is kept.
func (c *cycle) andreasConfigs(ji *jobInfo, aj *aJob, tw float64, prof *gpuProfile, frac float64) {
	all := c.andreasSizes(ji, frac)
	now := c.s.Now
	var onTime, late []aConfig
	fastest, slowest := math.Inf(1), 0.0
	for _, cf := range all {
		d, w := cf.dur, cf.w
		if c.o.EnergyWeight > 0 {
			kwh := d.Hours() * float64(w) * c.o.GPUWatts / 1000
			cf.cost = c.o.EnergyWeight * energyScale(ji.hints.Energy) * kwh
		}
		fastest, slowest = min(fastest, d.Seconds()), max(slowest, d.Seconds())
		if ji.deadline.IsZero() || !now.Add(d).After(ji.deadline) {
			onTime = append(onTime, cf)
			continue
		}
		cf.cost += tw * now.Add(d).Sub(ji.deadline).Seconds()
		late = append(late, cf)
	}
	if len(onTime)+len(late) == 0 {
		return
	}
	slices.SortStableFunc(onTime, func(a, b aConfig) int {
		if a.cost != b.cost {
			return lessInt(a.cost < b.cost)
		}
		return lessInt(a.dur < b.dur)
	})
	slices.SortStableFunc(late, func(a, b aConfig) int { return lessInt(a.dur < b.dur) })
	aj.cfgs = onTime
	if len(onTime) == 0 {
		f := late[0]
		wait, ok := prof.earliest(f.w, f.dur.Seconds(), 0)
		aj.cfgs = late[:1]
		for _, cf := range late[1:] {
			if !ok || cf.dur.Seconds() <= wait+f.dur.Seconds() {
				aj.cfgs = append(aj.cfgs, cf)
			}
		}
	}
	aj.pressure = math.Inf(-1)
	if !ji.deadline.IsZero() {
		left := ji.deadline.Sub(now).Seconds()
		aj.pressure = fastest - left
		aj.wait = andreasK * tw * math.Max(0, slowest-left)
	}
}

// islandProfile is the island's free GPUs over time as its running jobs
// end (this cycle's starts aside).
func (c *cycle) islandProfile(isl *island) *gpuProfile {
	free, _, _ := c.free(isl)
	rel := make([]release, 0, len(isl.running))
	for _, ji := range isl.running {
		rel = append(rel, release{c.runningEnd(ji).Sub(c.s.Now), ji.req})
	}
	return newProfile(free, rel)
}

// andreasShuffle is the base order after one pass of biased adjacent swaps:
// (j, j+1) swap with probability 0.5+π when j's tardiness weight is the
// larger, else 0.5−π. Aged jobs stay ahead of the others.
func andreasShuffle(jobs []*aJob, base []int, rng *rand.Rand) []int {
	order := slices.Clone(base)
	for k := 0; k+1 < len(order); k++ {
		a, b := jobs[order[k]].pl.ji, jobs[order[k+1]].pl.ji
		if a.aged != b.aged {
			continue
		}
		p := 0.5 - andreasPi
		if a.weight > b.weight {
			p = 0.5 + andreasPi
		}
		if rng.Float64() < p {
			order[k], order[k+1] = order[k+1], order[k]
		}
	}
	return order
}

// andreasPass runs one greedy pass over the jobs in order, reserving what
// it starts; rng nil is the deterministic pass (first choices only).
func (c *cycle) andreasPass(isl *island, jobs []*aJob, order []int, rng *rand.Rand) aPass {
	p := aPass{order: order, pick: make([]int, len(jobs)), nodes: make([][]int, len(jobs))}
	for _, k := range order {
		aj := jobs[k]
		ji := aj.pl.ji
		p.pick[k] = -1
		if ji.bbPool >= 0 && c.bbFree[ji.bbPool] < ji.bb {
			p.cost += aj.wait
			continue
		}
		first := 0
		if rng != nil {
			first = rng.IntN(int(math.Ceil(andreasAlpha * float64(len(aj.cfgs)))))
		}
		for t := -1; t < len(aj.cfgs); t++ {
			ci := t
			if t < 0 {
				ci = first
			} else if t == first {
				continue
			}
			cf := &aj.cfgs[ci]
			if nodes, ok := c.place(isl, cf.sh, ji.cpuPerW, ji.memPerW); ok {
				p.pick[k], p.nodes[k] = ci, nodes
				p.cost += cf.cost
				if ji.bbPool >= 0 {
					c.bbFree[ji.bbPool] -= ji.bb
				}
				break
			}
		}
		if p.pick[k] < 0 {
			p.cost += aj.wait
		}
	}
	p.after, p.bb = c.islandNodes(isl), slices.Clone(c.bbFree)
	return p
}

// islandNodes copies the island's node states.
func (c *cycle) islandNodes(isl *island) []nodeState {
	out := make([]nodeState, len(isl.nodes))
	for k, i := range isl.nodes {
		out[k] = c.nodes[i]
	}
	return out
}

// restoreIsland puts back node states and pool space saved before a pass.
func (c *cycle) restoreIsland(isl *island, saved []nodeState, bb []int64) {
	for k, i := range isl.nodes {
		c.nodes[i] = saved[k]
	}
	copy(c.bbFree, bb)
}

// withinLimit keeps a pending job's configurations that end within its
// time limit (Slurm kills a job at its limit); when none does, the
// fastest, planned to end at the limit.
func withinLimit(ji *jobInfo, all []aConfig) []aConfig {
	j := ji.job
	tl := j.TimeLimit
	if tl <= 0 || len(all) == 0 {
		return all
	}
	if len(all) > 1 {
		kept := slices.DeleteFunc(slices.Clone(all), func(cf aConfig) bool { return !fitsLimit(ji, cf.w, cf.dur) })
		if len(kept) > 0 {
			return kept
		}
		all = []aConfig{slices.MinFunc(all, func(a, b aConfig) int { return lessInt(a.dur < b.dur) })}
	}
	all[0].dur = capAtLimit(j, all[0].dur)
	return all
}

// andreasSizes are job ji's configurations (workers, servers, shape, run)
// andreas chooses among: its request when it keeps its size (a running job
// with frac of its work left, restarted when resized), else each size of
// its range; a pending job's within its time limit (withinLimit).
func (c *cycle) andreasSizes(ji *jobInfo, frac float64) []aConfig {
	running := ji.job.State == JobRunning
	ws := []int{ji.size}
	if running {
		ws = []int{ji.req}
	}
	if !ji.fixed {
		ws = ws[:0]
		for w := ji.gmin; w <= ji.gmax; w++ {
			ws = append(ws, w)
		}
	}
	var all []aConfig
	for _, w := range ws {
		var sh shape
		var ok bool
		switch {
		case running && w == ji.req:
			sh, ok = c.jobShape(ji)
		case ji.fixed:
			sh, ok = c.sizeShape(ji)
		default:
			sh, ok = c.shapeFor(ji.isl, w, ji.cpuPerW, ji.memPerW)
		}
		if !ok {
			continue
		}
		p := psFor(ji, w)
		if !running {
			if sh, p, ok = c.withServers(ji, sh, p); !ok {
				continue
			}
		}
		d, r := c.durationAt(ji, w, p)
		if running { // the work left, and a restart when the size changes
			d = seconds(d.Seconds()*frac + resizeSeconds(w != ji.req))
		}
		all = append(all, aConfig{w: w, p: p, sh: sh, dur: d, r: r})
	}
	if !running {
		all = withinLimit(ji, keepRequest(c.o, ji, all, func(cf aConfig) int { return cf.w }))
	}
	return all
}
