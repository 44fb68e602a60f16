package planner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// nodeState is the mutable free capacity of one node during a plan.
type nodeState struct {
	name             string
	gpus, cpus       int
	mem              int64 // MB
	freeGPU, freeCPU int
	freeMem          int64 // MB
	gpuType          string
	usable           bool
}

// island is one partition: the usable nodes it may place on.
type island struct {
	part    Partition
	idx     int   // position in cycle.islands
	gpus    int   // GPUs of its usable nodes
	nodes   []int // indices into cycle.nodes, sorted by name
	maxGPN  int   // most GPUs on one usable node
	atLeast []int // atLeast[g] = usable nodes with ≥ g GPUs
	gpuType string
	jobs    []*jobInfo // pending jobs of the partition, by ID
	running []*jobInfo
	static  map[[4]int64]bool // staticFits memo
	// byEnd is running by predicted end (runningByEnd), once byEndOK.
	byEnd   []*jobInfo
	byEndOK bool
	relTmp  []release // scratch for the profiles' running releases
	evTmp   eventHeap // scratch for predictStarts
	// profs are the buffers of the profiles scheduleWaiting (0, 1) and
	// roomAt (2) build.
	profs [3]gpuProfile
	// items and itemPtrs are the buffers of SMD's knapsack items, releases
	// of its release curve (smdIsland.releases).
	items    []smdItem
	itemPtrs []*smdItem
	releases []release
	smd      smdBufs
}

// jobInfo is a job with its parsed hints and derived limits.
type jobInfo struct {
	job     *Job
	hints   Hints
	hasHint bool
	hintErr error
	model   jobModel
	isl     *island
	weight  float64
	// userW is the weight from the hint and limits, before the site's
	// priority scales it into weight (sitepolicy.go).
	userW   float64
	req     int  // requested GPUs
	size    int  // request clamped into the user's range (fixed-size policies)
	gmin    int  // GPU range the planner may choose in
	gmax    int  //
	pmin    int  // PS range (0,0 when not PS)
	pmax    int  //
	psAuto  bool //
	psPerW  bool // ps=auto with Options.PSChoice "w": P = W
	fixed   bool // only priority may change
	keep    bool // leave untouched (invalid hint, rewrite=no)
	cpuPerW float64
	memPerW int64 // MB per worker
	bb      int64
	bbPool  int // index into cycle.pools, -1 = none (or its space is held: bbHeld)
	// bbHeld is the pool of the space a pending job holds already (-1:
	// none); stageIn how long until its burst-buffer data is in (bbplan.go).
	bbHeld  int
	stageIn time.Duration
	// stageOut is how long its output takes out of the pool after it ends
	// (bbout=), its space held meanwhile.
	stageOut time.Duration
	aged     bool
	notYet   time.Duration // > 0: Slurm does not consider the job before then (eligibleIn)
	// canPreempt: the policy may stop (or resize) this running job in this
	// plan: any running job when Options.Reshape is set (the simulator's
	// ideal mode), else only a preemptible one (mayPreempt).
	canPreempt bool
	// leaving: a running job this plan preempts (or that was signalled
	// already) while it still holds its GPUs: it checkpoints and requeues
	// itself, so its GPUs are predicted free within an interval.
	leaving bool
	// end is a running job's predicted end unless it is leaving
	// (runningEnd), set once per cycle by setDynamic: the plan reads it
	// for every running job several times.
	end  time.Time
	left time.Duration // end − Now
	// overdue: a running job already past its predicted run, so end is
	// overdueEnd's (set with end).
	overdue bool
	// heldLong: a running job SMD counts against the long-job share this
	// cycle (newSMDIsland).
	heldLong bool
	kappa    float64
	deadline time.Time
	// deadlinePast: the hint's deadline= was already past when the job was
	// submitted (or, submit time unknown, at the snapshot's time), so
	// deadline is left zero (setDynamic).
	deadlinePast bool
	// capped says which site limits cut the hint's weight or GPU range
	// ("" when none did).
	capped string
	// gpuMemNeed and gpuMemHave (MiB) are set when the worker's estimated
	// GPU memory exceeds the configured memory of its GPU type.
	gpuMemNeed, gpuMemHave int64
	// gpuType is the job's GPU type (lower case); calibNote explains the
	// calibration applied to the job ("" when none: calibration.go).
	gpuType, calibNote string
	memo               *memoEntry // the job's memo entry, nil without a memo
	// chosen: the top tier gave the job its island among the partitions it
	// lists (toptier.go), so the decision names the partition; choice says
	// why, with the numbers.
	chosen bool
	choice string
	// slowdown is how much longer the job runs in the slowest partition it
	// lists than in the chosen one (≥ 1).
	slowdown float64
}

// cycle is the working state of one Plan call.
type cycle struct {
	s       *Snapshot
	o       *Options
	nodes   []nodeState
	islands []*island // sorted by partition name
	byPart  map[string]*island
	// overdueBy lists each island's overdue running jobs (jobInfo.overdue),
	// built when the first decision is explained (behindOverdue).
	overdueBy map[*island][]*jobInfo
	jobs      []*jobInfo // every pending and running job, by ID
	pools     []BurstBufferPool
	bbFree    []int64
	// bbFlows counts, per pool, the pending jobs staging in now: they
	// share the pool's total bandwidth with a job that starts its own.
	bbFlows []int
	orphans []*jobInfo // jobs with an unknown partition or no GPUs
	memo    *memo      // per-job work kept across calls; nil = none
	// Slabs that hand out many small values with few allocations.
	plSlab  []planned
	optSlab []option
	optTmp  []option // scratch for options before pruning
	scratch scratch
	// stablePred: durations from o.Predictor may be kept across calls
	// (stablePredictor).
	stablePred bool
	// soonest is one interval from now, the earliest a running job is
	// predicted to end.
	soonest time.Time
	// lastPart is partitionOf's last answer.
	lastPart struct {
		name string
		isl  *island
		ok   bool
	}
	pending int // pending jobs in jobs
	// siteMax is the largest site priority of a job in the snapshot
	// (sitepolicy.go).
	siteMax int64
}

// newCycleMemo builds the plan state from a snapshot, reusing (and
// updating) the policy's memo m; m may be nil.
func newCycleMemo(ctx context.Context, s *Snapshot, o *Options, m *memo) (*cycle, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("plan snapshot %s: %w", s.ID, err)
	}
	c := &cycle{s: s, o: o, byPart: map[string]*island{}, memo: m, stablePred: stablePredictor(o.Predictor),
		soonest: s.Now.Add(o.Interval)}
	if m != nil {
		m.begin(s)
	}
	var idx map[string]int // node name → index; static, so kept in the memo
	if m != nil {
		idx = m.nodeIdx
	}
	build := idx == nil
	if build {
		idx = make(map[string]int, len(s.Nodes))
		if m != nil {
			m.nodeIdx = idx
		}
	}
	if m != nil {
		m.lend(c)
	}
	c.nodes = slices.Grow(c.nodes, len(s.Nodes))
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if build {
			idx[n.Name] = len(c.nodes)
		}
		c.nodes = append(c.nodes, nodeState{name: n.Name, gpus: n.GPUs, cpus: n.CPUs, mem: n.MemoryMB,
			freeGPU: n.FreeGPUs(), freeCPU: max(0, n.CPUs-n.AllocCPUs), freeMem: max(0, n.MemoryMB-n.AllocMemMB),
			gpuType: n.GPUType, usable: n.Usable()})
	}
	parts := append([]Partition(nil), s.Partitions...)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Name < parts[j].Name })
	for _, p := range parts {
		c.addIsland(p, idx)
	}
	c.pools = append([]BurstBufferPool(nil), s.BurstBufferPools...)
	sort.Slice(c.pools, func(i, j int) bool { return c.pools[i].Name < c.pools[j].Name })
	for _, p := range c.pools {
		c.bbFree = append(c.bbFree, max(0, p.CapacityBytes-p.UsedBytes))
	}
	c.bbFlows = make([]int, len(c.pools))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if k := c.poolIndex(j.BurstBufferPool, j.BurstBufferBytes); k >= 0 && j.State == JobPending && bbStaging[j.BurstBufferState] {
			c.bbFlows[k]++
		}
	}
	c.siteMax = siteMaxPriority(s, o)
	c.addJobs()
	if m != nil {
		m.evict()
	}
	return c, nil
}

func (c *cycle) addIsland(p Partition, idx map[string]int) {
	isl := &island{part: p, idx: len(c.islands)}
	if c.memo != nil {
		isl.static = c.memo.staticFor(len(c.islands))
	} else {
		isl.static = map[[4]int64]bool{}
	}
	if c.memo != nil {
		c.memo.islandShape(isl, func() { c.shapeIsland(isl, idx) })
	} else {
		c.shapeIsland(isl, idx)
	}
	c.islands = append(c.islands, isl)
	c.byPart[p.Name] = isl
}

// shapeIsland sets the island's static parts (islandShape): its usable
// nodes by name, their GPUs, the most on one node, how many have at least
// each count, and their GPU type.
func (c *cycle) shapeIsland(isl *island, idx map[string]int) {
	names := append([]string(nil), isl.part.Nodes...)
	sort.Strings(names)
	for _, n := range names {
		i, ok := idx[n]
		if !ok || !c.nodes[i].usable {
			continue
		}
		isl.nodes = append(isl.nodes, i)
		isl.gpus += c.nodes[i].gpus
		isl.maxGPN = max(isl.maxGPN, c.nodes[i].gpus)
		if isl.gpuType == "" {
			isl.gpuType = c.nodes[i].gpuType
		}
	}
	isl.atLeast = make([]int, isl.maxGPN+1)
	for _, i := range isl.nodes {
		for g := 0; g <= c.nodes[i].gpus; g++ {
			isl.atLeast[g]++
		}
	}
}

// defaultIsland is the partition of jobs that name none.
func (c *cycle) defaultIsland() *island {
	for _, isl := range c.islands {
		if isl.part.Default {
			return isl
		}
	}
	if len(c.islands) == 1 {
		return c.islands[0]
	}
	return nil
}

func (c *cycle) addJobs() {
	jobs := c.scratch.jobs[:0]
	for i := range c.s.Jobs {
		if st := c.s.Jobs[i].State; st == JobPending || st == JobRunning {
			jobs = append(jobs, &c.s.Jobs[i])
		}
	}
	c.scratch.jobs = jobs
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	c.jobs = slices.Grow(c.scratch.infos[:0], len(jobs))
	var flex []*Job // jobs whose partition the top tier chooses (toptier.go)
	for _, j := range jobs {
		if c.o.TopTier && c.candidates(j) != nil {
			flex = append(flex, j)
			continue
		}
		c.addJobInfo(c.newJobInfo(j, c.partitionOf(j)))
	}
	if len(flex) == 0 {
		return
	}
	c.chooseIslands(flex)
	byID := func(a, b *jobInfo) int { return cmp.Compare(a.job.ID, b.job.ID) }
	slices.SortFunc(c.jobs, byID)
	slices.SortFunc(c.orphans, byID)
	for _, isl := range c.islands {
		slices.SortFunc(isl.jobs, byID)
	}
}

// addJobInfo adds a job to the cycle: to its island's pending or running
// jobs, or to the orphans left to Slurm.
func (c *cycle) addJobInfo(ji *jobInfo) {
	j := ji.job
	c.jobs = append(c.jobs, ji)
	if j.State == JobPending {
		c.pending++
	}
	switch {
	case ji.isl == nil || ji.req == 0 || j.Unreadable != "" || grouped(j) || c.unweighed(j): // left to Slurm
		c.orphans = append(c.orphans, ji)
	case j.State == JobRunning:
		ji.isl.running = append(ji.isl.running, ji)
	default:
		ji.isl.jobs = append(ji.isl.jobs, ji)
	}
}

// grouped reports a pending job Strata must not write to: an array (its
// record stands for all its remaining tasks, so a write would change every
// task) or a component of a heterogeneous job.
func grouped(j *Job) bool {
	return j.State == JobPending && (j.ArrayJobID != 0 || j.HetJobID != 0)
}

// eligibleIn is how long until Slurm considers a pending job at all: its
// begin time (sbatch --begin, a requeue delay) if that is ahead, one
// interval for a job that waits on a dependency (when that resolves is not
// known), 0 for a job Slurm may start now. The plan sizes and ranks such
// jobs but never starts or defers them before then.
func (c *cycle) eligibleIn(j *Job) time.Duration {
	switch {
	case j.State != JobPending:
		return 0
	case j.BeginTime.After(c.s.Now):
		return j.BeginTime.Sub(c.s.Now)
	case j.Reason == "Dependency":
		return c.o.Interval
	}
	return 0
}

// partitionOf returns the island of the job's (first) partition: the
// last answer again for the same Partition (most jobs of a cycle name the
// same), as the islands do not change within a cycle.
func (c *cycle) partitionOf(j *Job) *island {
	if c.lastPart.ok && j.Partition == c.lastPart.name {
		return c.lastPart.isl
	}
	name, _, _ := strings.Cut(j.Partition, ",")
	isl := c.defaultIsland()
	if name != "" {
		isl = c.byPart[name]
	}
	c.lastPart.name, c.lastPart.isl, c.lastPart.ok = j.Partition, isl, true
	return isl
}

// poolIndex picks the job's burst-buffer pool: the named one, else the only
// one; -1 when the job needs none or no pool is configured.
func (c *cycle) poolIndex(name string, bytes int64) int {
	if bytes <= 0 || len(c.pools) == 0 {
		return -1
	}
	for i, p := range c.pools {
		if p.Name == name {
			return i
		}
	}
	if len(c.pools) == 1 {
		return 0
	}
	return -1
}
