package planner

import (
	"math"
	"slices"
	"sync"
	"time"
)

// memo caches the pure per-job work of a policy across Plan calls: parsed
// hints, the time model and derived limits (jobInfo), and SMD's option grid
// with predicted durations before costs. An entry is reused only when every
// job field it was derived from is unchanged, and the whole memo is dropped
// when the cluster's static shape (nodes, capacities, partitions) changes,
// so a plan with the memo equals the plan without it. Entries of jobs absent
// from a snapshot are evicted, so the memo holds at most one snapshot's jobs.
type memo struct {
	shape clusterShape // of the snapshot the entries were built for
	gen   uint64
	jobs  map[int64]*memoEntry
	// seen are the entries the current call returned in ascending ID
	// order (it asks by ID, but for the jobs the top tier places: those
	// are in other); last and lastOther are the last call's, next the
	// first of last not passed yet. The jobs of one call are mostly the
	// last one's, so entry finds most of them in last, in order, before
	// the map.
	seen, other, last, lastOther []*memoEntry
	next                         int
	seenIDs, lastIDs             []int64 // seen's and last's IDs
	// static holds each island's staticFits answers (by the island's index
	// in the cycle), which depend only on the cluster's static shape.
	static map[int]map[[4]int64]bool
	// nodeIdx maps node names to their index in the snapshot.
	nodeIdx map[string]int
	// islands are the islands' static parts (by index; addIsland), roots
	// the islands that share nodes, as islandGroups joins them (nil: not
	// built yet).
	islands []islandShape
	roots   []int
	// Buffers of the last Plan call, for the next one (nothing refers to
	// them once a plan is returned): the nodes' free capacity and the
	// cycle's slabs.
	nodes           []nodeState
	plSlab          []planned
	optSlab, optTmp []option
	scratch         scratch
}

// scratch is a Plan call's working memory that only the cycle itself
// (not an island group's copy) uses, lent from call to call like the
// slabs.
type scratch struct {
	jobs   []*Job        // addJobs
	infos  []*jobInfo    // cycle.jobs
	keys   []rankKey     // rank
	flat   []flatRankKey // sortRankKeysIn
	sorted []rankKey     //
}

// lend gives cycle c the buffers of the last call.
func (m *memo) lend(c *cycle) {
	c.nodes, c.plSlab, c.optSlab, c.optTmp = m.nodes[:0], m.plSlab[:0], m.optSlab[:0], m.optTmp[:0]
	c.scratch = m.scratch
}

// keep takes back cycle c's buffers once its plan is made.
func (m *memo) keep(c *cycle) {
	m.nodes, m.plSlab, m.optSlab, m.optTmp = c.nodes[:0], c.plSlab[:0], c.optSlab[:0], c.optTmp[:0]
	m.scratch = c.scratch
	m.scratch.infos = c.jobs[:0]
	for _, isl := range c.islands {
		if isl.idx < len(m.islands) {
			sh := &m.islands[isl.idx]
			sh.jobs, sh.running, sh.byEnd = isl.jobs[:0], isl.running[:0], isl.byEnd[:0]
			sh.relTmp, sh.evTmp, sh.profs = isl.relTmp[:0], isl.evTmp[:0], isl.profs
			sh.items, sh.itemPtrs, sh.releases, sh.smd = isl.items[:0], isl.itemPtrs[:0], isl.releases[:0], isl.smd
		}
	}
}

// islandShape is an island's static part (shapeIsland), which depends
// only on the cluster's static shape; the planner never modifies it, so
// each cycle's island shares it.
type islandShape struct {
	part         Partition
	nodes        []int
	gpus, maxGPN int
	atLeast      []int
	gpuType      string
	// the island's job lists and scratch of the last call, for the next
	// (keep)
	jobs, running, byEnd []*jobInfo
	relTmp               []release
	evTmp                eventHeap
	profs                [3]gpuProfile
	items                []smdItem
	itemPtrs             []*smdItem
	releases             []release
	smd                  smdBufs
}

// islandShape sets island isl's static part from the memo, or by build
// (then kept for the next cycles of this cluster).
func (m *memo) islandShape(isl *island, build func()) {
	if isl.idx < len(m.islands) {
		// The partitions are sorted by name: the same at each index unless
		// two share a name (then the one built must be the one asked).
		if sh := &m.islands[isl.idx]; sh.part.Name == isl.part.Name && slices.Equal(sh.part.Nodes, isl.part.Nodes) {
			isl.nodes, isl.gpus, isl.maxGPN, isl.atLeast, isl.gpuType = sh.nodes, sh.gpus, sh.maxGPN, sh.atLeast, sh.gpuType
			isl.jobs, isl.running, isl.byEnd = sh.jobs[:0], sh.running[:0], sh.byEnd[:0]
			isl.relTmp, isl.evTmp, isl.profs = sh.relTmp[:0], sh.evTmp[:0], sh.profs
			isl.items, isl.itemPtrs, isl.releases, isl.smd = sh.items[:0], sh.itemPtrs[:0], sh.releases[:0], sh.smd
			return
		}
	}
	build()
	if isl.idx == len(m.islands) {
		part := Partition{Name: isl.part.Name, Nodes: slices.Clone(isl.part.Nodes)}
		m.islands = append(m.islands, islandShape{part: part, nodes: isl.nodes, gpus: isl.gpus, maxGPN: isl.maxGPN,
			atLeast: isl.atLeast, gpuType: isl.gpuType})
	}
}

// maxStatic bounds one island's staticFits memo; it restarts when full.
const maxStatic = 1 << 16

// staticFor is the staticFits memo of the island with index i.
func (m *memo) staticFor(i int) map[[4]int64]bool {
	s := m.static[i]
	if s == nil || len(s) > maxStatic {
		s = map[[4]int64]bool{}
		m.static[i] = s
	}
	return s
}

// memoEntry is one job's cached work.
type memoEntry struct {
	id   int64 // the job's
	key  memoKey
	gen  uint64   // last snapshot that held the job
	info jobInfo  // reused each call; job, isl, memo, aged and bbPool are set per call
	grid []option // options before durations (gridOK)
	opts []option // options before costs (optsOK)
	// gridOK says grid is cached; optsOK says opts is cached (durations
	// that came from a Predictor are cached only when it is a
	// StablePredictor: others' predictions may change between calls).
	gridOK bool
	optsOK bool
	// runDur is the modelled run at the job's requested size, from which
	// a running job's end is predicted (predictEnd), when runOK (under the
	// same rule as opts).
	runDur time.Duration
	runOK  bool
}

// memoKey is every Job field the cached work depends on.
type memoKey struct {
	comment, partition, gpuType    string
	account, qos                   string // the limits that match (limits.go)
	gpusPerNode, gpusPerJob, nodes int
	gpusPerTask, tasks             int
	cpusPerTask                    int // a PS job's servers as tasks (servers.go)
	perGPU                         [2]bool
	sizeLocked                     bool
	claimFactor                    float64
	claimDistrust                  bool
	cpus                           int
	memMB, bbBytes                 int64
	timeLimit                      time.Duration
}

// keyOf is the job's key when planned in partition part.
func keyOf(j *Job, part string) memoKey {
	return memoKey{comment: j.Comment, partition: part, account: j.Account, qos: j.QOS, gpuType: j.GPUType,
		gpusPerNode: j.GPUsPerNode, gpusPerJob: j.GPUsPerJob, nodes: j.Nodes, cpus: j.CPUs,
		gpusPerTask: j.GPUsPerTask, tasks: j.Tasks, sizeLocked: j.SizeLocked,
		cpusPerTask: j.CPUsPerTask, perGPU: [2]bool{j.CPUsPerGPU, j.MemoryPerGPU},
		claimFactor: j.Claim.Factor, claimDistrust: j.Claim.Distrust,
		memMB: j.MemoryMB, bbBytes: j.BurstBufferBytes, timeLimit: j.TimeLimit}
}

// clusterShape is the static shape of a snapshot's cluster: what islands,
// shapes and the time model's GPU types depend on. Its parts are copies:
// a caller may reuse a snapshot's buffers.
type clusterShape struct {
	nodes []nodeShape
	parts []Partition // Name, Nodes, MaxTime, TotalCPUs, TotalGPUs, Default
	speed []SpeedFactor
	power []GPUPower
}

type nodeShape struct {
	name, gpuType string
	gpus, cpus    int
	mem           int64
	usable        bool
}

func shapeOf(n *Node) nodeShape {
	return nodeShape{name: n.Name, gpuType: n.GPUType, gpus: n.GPUs, cpus: n.CPUs, mem: n.MemoryMB, usable: n.Usable()}
}

// matches reports whether snapshot s has this shape.
func (c *clusterShape) matches(s *Snapshot) bool {
	if len(s.Nodes) != len(c.nodes) || len(s.Partitions) != len(c.parts) {
		return false
	}
	for i := range s.Nodes {
		if shapeOf(&s.Nodes[i]) != c.nodes[i] {
			return false
		}
	}
	for i := range s.Partitions {
		p, q := &s.Partitions[i], &c.parts[i]
		if p.Name != q.Name || p.MaxTime != q.MaxTime || p.TotalCPUs != q.TotalCPUs || p.TotalGPUs != q.TotalGPUs ||
			p.Default != q.Default || !slices.Equal(p.Nodes, q.Nodes) {
			return false
		}
	}
	var speed []SpeedFactor
	var power []GPUPower
	if s.Calibration != nil {
		speed, power = s.Calibration.Speed, s.Calibration.Power
	}
	return slices.EqualFunc(speed, c.speed, func(a, b SpeedFactor) bool {
		return a.Model == b.Model && a.GPUType == b.GPUType && sameFloat(a.Factor, b.Factor)
	}) && slices.EqualFunc(power, c.power, func(a, b GPUPower) bool {
		return a.GPUType == b.GPUType && sameFloat(a.Watts, b.Watts)
	})
}

// sameFloat: a and b print the same (NaNs alike, 0 and -0 not).
func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b
}

// set makes the shape s's.
func (c *clusterShape) set(s *Snapshot) {
	c.nodes = c.nodes[:0]
	for i := range s.Nodes {
		c.nodes = append(c.nodes, shapeOf(&s.Nodes[i]))
	}
	c.parts = c.parts[:0]
	for _, p := range s.Partitions {
		c.parts = append(c.parts, Partition{Name: p.Name, Nodes: slices.Clone(p.Nodes), MaxTime: p.MaxTime,
			TotalCPUs: p.TotalCPUs, TotalGPUs: p.TotalGPUs, Default: p.Default})
	}
	c.speed, c.power = nil, nil
	if s.Calibration != nil {
		c.speed, c.power = slices.Clone(s.Calibration.Speed), slices.Clone(s.Calibration.Power)
	}
}

// begin starts a Plan call on snapshot s: it drops every entry when the
// cluster changed.
func (m *memo) begin(s *Snapshot) {
	if m.jobs == nil || !m.shape.matches(s) {
		m.shape.set(s)
		m.jobs, m.static = map[int64]*memoEntry{}, map[int]map[[4]int64]bool{}
		m.nodeIdx, m.islands, m.roots = nil, nil, nil
		m.seen, m.other, m.seenIDs = m.seen[:0], m.other[:0], m.seenIDs[:0]
	}
	m.gen++
	m.last, m.seen, m.next = m.seen, m.last[:0], 0
	m.lastOther, m.other = m.other, m.lastOther[:0]
	m.lastIDs, m.seenIDs = m.seenIDs, m.lastIDs[:0]
}

// entry returns the job's entry, fresh (ok false) when it has none or the
// job changed, and marks it as seen in this call; dup reports that the
// call already saw the ID (then e is nil).
func (m *memo) entry(j *Job, part string) (e *memoEntry, ok, dup bool) {
	e = m.lastEntry(j.ID)
	if e == nil {
		e = m.jobs[j.ID]
	}
	if e != nil && e.gen == m.gen {
		return nil, false, true
	}
	k := keyOf(j, part)
	ok = e != nil && e.key == k
	if !ok {
		e = &memoEntry{id: j.ID, key: k}
		m.jobs[j.ID] = e
	}
	e.gen = m.gen
	if n := len(m.seen); n == 0 || m.seen[n-1].id < e.id {
		m.seen, m.seenIDs = append(m.seen, e), append(m.seenIDs, e.id)
	} else {
		m.other = append(m.other, e)
	}
	return e, ok, false
}

// lastEntry is the last call's entry of job id when it is the next of
// last (nil: look in the map). It is the map's entry then, or this call
// returned it already (its gen is set: a duplicate): the map held every
// entry of last at the end of the last call, and an ID's entry is
// replaced only by entry, which, last ascending, found it here first.
func (m *memo) lastEntry(id int64) *memoEntry {
	ids := m.lastIDs
	for m.next < len(ids) && ids[m.next] < id {
		m.next++
	}
	if m.next < len(ids) && ids[m.next] == id {
		m.next++
		return m.last[m.next-1]
	}
	return nil
}

// evict drops the entries of jobs the current snapshot did not hold: the
// map holds the entries this call returned and, of the last call's, those
// of jobs it did not ask for.
func (m *memo) evict() {
	for _, l := range [][]*memoEntry{m.last, m.lastOther} {
		for _, e := range l {
			if e.gen != m.gen && m.jobs[e.id] == e {
				delete(m.jobs, e.id)
			}
		}
		clear(l) // the entries evicted are not kept alive by the lists
	}
}

// memoSlot hands a policy's memo to one Plan call at a time; a concurrent
// call gets an empty memo instead of waiting.
type memoSlot struct {
	mu sync.Mutex
	m  *memo
}

// take removes the memo from the slot (a new one when it is empty).
func (s *memoSlot) take() *memo {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.m
	s.m = nil
	if m == nil {
		m = &memo{}
	}
	return m
}

// put returns the memo to the slot.
func (s *memoSlot) put(m *memo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m = m
}
