package planner

import (
	"bytes"
	"strconv"
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
	cluster []byte // clusterKey of the snapshot the entries were built for
	spare   []byte // buffer for the next clusterKey
	gen     uint64
	jobs    map[int64]*memoEntry
	// static holds each island's staticFits answers (by the island's index
	// in the cycle), which depend only on the cluster's static shape.
	static map[int]map[[4]int64]bool
	// nodeIdx maps node names to their index in the snapshot.
	nodeIdx map[string]int
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
	key  memoKey
	gen  uint64   // last snapshot that held the job
	info jobInfo  // reused each call; job, isl, memo, aged and bbPool are set per call
	grid []option // options before durations (gridOK)
	opts []option // options before costs (optsOK)
	// gridOK says grid is cached; optsOK says opts is cached (durations
	// that came from a Predictor are never cached: predictions may change
	// between calls).
	gridOK bool
	optsOK bool
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

// clusterKey encodes the static shape of the snapshot's cluster: what
// islands, shapes and the time model's GPU types depend on.
func clusterKey(b []byte, s *Snapshot) []byte {
	b = b[:0]
	for _, n := range s.Nodes {
		b = append(b, n.Name...)
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(n.GPUs), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(n.CPUs), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, n.MemoryMB, 10)
		b = append(b, ',')
		b = strconv.AppendBool(b, n.Usable())
		b = append(b, n.GPUType...)
		b = append(b, 0)
	}
	b = append(b, 1)
	for _, p := range s.Partitions {
		b = append(b, p.Name...)
		b = append(b, 0)
		for _, n := range p.Nodes {
			b = append(b, n...)
			b = append(b, 0)
		}
		b = strconv.AppendInt(b, int64(p.MaxTime), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.TotalCPUs), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.TotalGPUs), 10)
		b = strconv.AppendBool(b, p.Default)
		b = append(b, 1)
	}
	return s.Calibration.appendKey(b)
}

// begin starts a Plan call on snapshot s: it drops every entry when the
// cluster changed.
func (m *memo) begin(s *Snapshot) {
	k := clusterKey(m.spare, s)
	same := bytes.Equal(k, m.cluster) && m.jobs != nil
	m.cluster, m.spare = k, m.cluster
	if !same {
		m.jobs, m.static = map[int64]*memoEntry{}, map[int]map[[4]int64]bool{}
		m.nodeIdx = nil
	}
	m.gen++
}

// entry returns the job's entry, fresh (ok false) when it has none or the
// job changed, and marks it as seen in this call; dup reports that the
// call already saw the ID (then e is nil).
func (m *memo) entry(j *Job, part string) (e *memoEntry, ok, dup bool) {
	e = m.jobs[j.ID]
	if e != nil && e.gen == m.gen {
		return nil, false, true
	}
	k := keyOf(j, part)
	ok = e != nil && e.key == k
	if !ok {
		e = &memoEntry{key: k}
		m.jobs[j.ID] = e
	}
	e.gen = m.gen
	return e, ok, false
}

// evict drops the entries of jobs the current snapshot did not hold.
func (m *memo) evict() {
	for id, e := range m.jobs {
		if e.gen != m.gen {
			delete(m.jobs, id)
		}
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
