package slurm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/strata-hpc/strata/planner"
)

// Incremental job reads. slurmrestd's GET /jobs costs about 8 KB of JSON and
// 1–2 ms of slurmrestd's time per job (10,000 jobs: 78–81 MB, 12–25 s on the
// 2-core test bed), and its update_time parameter does not help: slurmctld
// answers "no change" only when no job at all changed since then
// (_slurm_rpc_dump_jobs compares it with the global last_job_update, which
// every submission, start, end and scheduling pass moves), and otherwise
// sends every job. So between full reads a snapshot asks GET /jobs/state
// (every job's ID and state, about 80 bytes a job) and reads again, one
// GET /job/{id} each, only the jobs that are new, gone or in another state
// since the last snapshot, and those this client wrote to. What it cannot
// see is a change to a job that keeps its state (a user's scontrol update of
// a pending job's comment, GPUs or partition, Slurm's priority
// recalculation): that shows at the next full read, at most the interval
// set with SetJobsFullReadEvery later. Writes are safe from it: Apply reads
// each job again before writing to it.

// jobCache is what a client keeps between snapshots for incremental reads.
type jobCache struct {
	mu    sync.Mutex
	every time.Duration // 0: every snapshot reads every job (unless auto)
	// autoAbove and autoEvery switch incremental reads on by themselves
	// (SetJobsIncrementalAbove): while the last full read saw at least
	// autoAbove jobs, every is autoEvery; lastCount is that read's count.
	autoAbove int
	autoEvery time.Duration
	lastCount int
	counted   bool // a full read has counted the queue (lastCount holds)
	jobs      map[int64]planner.Job
	states    map[string]string // GET /jobs/state when jobs was last brought up to date
	cluster   string
	fullAt    time.Time

	dmu   sync.Mutex
	dirty map[int64]struct{} // jobs written since the last snapshot
}

// jobsRead says how a snapshot read its jobs (for its log line).
type jobsRead struct {
	full   bool
	reread int   // jobs read one by one (incremental)
	bytes  int64 // bytes of slurmrestd's answers
}

// SetJobsFullReadEvery turns incremental job reads on (every > 0): a
// snapshot reads every job in full only when the last full read is at least
// every old, and otherwise the job states and the jobs that changed state
// or were written by this client (see the package notes above: a change
// that keeps a job's state is seen at the next full read). 0, the default,
// reads every job at every snapshot. The first snapshot is always full.
func (c *Client) SetJobsFullReadEvery(every time.Duration) {
	c.jobCache.mu.Lock()
	defer c.jobCache.mu.Unlock()
	c.jobCache.every = max(0, every)
}

// SetJobsIncrementalAbove makes reads incremental by themselves on a large
// queue: while the last full read saw at least above jobs (0: never),
// snapshots read as with SetJobsFullReadEvery(every); below it every job
// is read at every snapshot. An explicit SetJobsFullReadEvery wins.
func (c *Client) SetJobsIncrementalAbove(above int, every time.Duration) {
	c.jobCache.mu.Lock()
	defer c.jobCache.mu.Unlock()
	c.jobCache.autoAbove, c.jobCache.autoEvery = max(0, above), max(0, every)
}

// effectiveEvery is the full-read interval in force: the one set, else the
// automatic one while the queue is large, else 0 (every job every time).
func (jc *jobCache) effectiveEvery() time.Duration {
	if jc.every > 0 {
		return jc.every
	}
	// Until a full read has counted the queue, the first read goes through
	// the cache (the states, then every job): on a large queue the next
	// snapshot is then incremental, not a second full read.
	if jc.autoAbove > 0 && jc.autoEvery > 0 && (jc.lastCount >= jc.autoAbove || !jc.counted) {
		return jc.autoEvery
	}
	return 0
}

// markDirty notes that job id was written to: the next incremental
// snapshot reads it again.
func (jc *jobCache) markDirty(id int64) {
	jc.dmu.Lock()
	defer jc.dmu.Unlock()
	if jc.dirty == nil {
		jc.dirty = map[int64]struct{}{}
	}
	jc.dirty[id] = struct{}{}
}

// takeDirty returns the jobs written since the last call and forgets them.
func (jc *jobCache) takeDirty() map[int64]struct{} {
	jc.dmu.Lock()
	defer jc.dmu.Unlock()
	d := jc.dirty
	jc.dirty = nil
	return d
}

// readJobs lists the jobs for a snapshot: in full, or incrementally from
// the cache when that is on and the last full read is recent enough.
func (c *Client) readJobs(ctx context.Context) ([]planner.Job, string, jobsRead, error) {
	jc := &c.jobCache
	jc.mu.Lock()
	every := jc.effectiveEvery()
	if every <= 0 { // off: concurrent snapshots read at the same time, as always
		jc.jobs = nil
		jc.mu.Unlock()
		jobs, cluster, err := c.api.jobs(ctx)
		if err == nil {
			jc.mu.Lock()
			jc.lastCount, jc.counted = len(jobs), true // large enough: the next snapshot goes incremental (auto)
			jc.mu.Unlock()
		}
		return jobs, cluster, jobsRead{full: true, bytes: c.jobsBytes.Load()}, err
	}
	defer jc.mu.Unlock()
	now := c.now()
	dirty := jc.takeDirty()
	// The states come first: a change between them and a full read is read
	// again at the next snapshot rather than missed.
	states, sbytes, err := c.api.jobStates(ctx)
	if err != nil {
		jc.jobs = nil
		return nil, "", jobsRead{}, err
	}
	var ids []int64
	ok := jc.jobs != nil && now.Sub(jc.fullAt) < every
	if ok {
		ids, ok = changedJobs(jc.states, states, dirty)
		// Many changes (a burst of submissions): one full read is cheaper
		// than one request per job.
		ok = ok && len(ids) <= len(jc.jobs)/10+20
	}
	if !ok {
		jobs, cluster, how, err := c.readAllJobs(ctx, states, now)
		how.bytes += sbytes
		return jobs, cluster, how, err
	}
	read, n, err := c.readEach(ctx, ids)
	if err != nil {
		jc.jobs = nil // the next snapshot starts over with a full read
		return nil, "", jobsRead{}, err
	}
	mergeJobs(jc.jobs, read)
	jc.states = states
	return jc.list(), jc.cluster, jobsRead{reread: len(ids), bytes: sbytes + n}, nil
}

// readAllJobs is a full read, which becomes the cache.
func (c *Client) readAllJobs(ctx context.Context, states map[string]string, now time.Time) ([]planner.Job, string, jobsRead, error) {
	jc := &c.jobCache
	jobs, cluster, err := c.api.jobs(ctx)
	if err != nil {
		jc.jobs = nil
		return nil, "", jobsRead{}, err
	}
	jc.jobs = make(map[int64]planner.Job, len(jobs))
	for _, j := range jobs {
		jc.jobs[j.ID] = j
	}
	jc.states, jc.cluster, jc.fullAt, jc.lastCount, jc.counted = states, cluster, now, len(jobs), true
	return jc.list(), cluster, jobsRead{full: true, bytes: c.jobsBytes.Load()}, nil
}

// readEach reads the records under each of ids, four at a time; a job
// slurmctld no longer knows reads as no records.
func (c *Client) readEach(ctx context.Context, ids []int64) (map[int64][]planner.Job, int64, error) {
	var mu sync.Mutex
	out := make(map[int64][]planner.Job, len(ids))
	var bytes int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, id := range ids {
		g.Go(func() error {
			recs, n, err := c.api.jobRecords(gctx, id)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			mu.Lock()
			out[id], bytes = recs, bytes+n
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("read changed jobs: %w", err)
	}
	return out, bytes, nil
}

// list copies the cached jobs out (slices too: a snapshot's jobs may be
// changed by whoever plans them).
func (jc *jobCache) list() []planner.Job {
	out := make([]planner.Job, 0, len(jc.jobs))
	for _, j := range jc.jobs {
		j.Partitions, j.NodeList = slices.Clone(j.Partitions), slices.Clone(j.NodeList)
		if j.GPUAlloc != nil {
			alloc := make([]planner.GPUAllocation, len(j.GPUAlloc))
			for i, a := range j.GPUAlloc {
				alloc[i] = planner.GPUAllocation{Node: a.Node, Indices: slices.Clone(a.Indices)}
			}
			j.GPUAlloc = alloc
		}
		out = append(out, j)
	}
	return out
}

// stateKeyJob is the job to read for a GET /jobs/state key: the job
// ("123"), the array of a task ("123_4", "123_[4-7]": GET /job/123 answers
// every task of the array) or the leader of a heterogeneous job's component
// ("101+1", component 101 at offset 1 of leader 100: GET /job/100 answers
// every component). ok is false for a key of another form.
func stateKeyJob(key string) (int64, bool) {
	if i := strings.IndexByte(key, '_'); i > 0 {
		id, err := strconv.ParseInt(key[:i], 10, 64)
		return id, err == nil && id > 0
	}
	if i := strings.IndexByte(key, '+'); i > 0 {
		id, err1 := strconv.ParseInt(key[:i], 10, 64)
		off, err2 := strconv.ParseInt(key[i+1:], 10, 64)
		return id - off, err1 == nil && err2 == nil && off >= 0 && id-off > 0
	}
	id, err := strconv.ParseInt(key, 10, 64)
	return id, err == nil && id > 0
}

// changedJobs lists, sorted, the jobs to read again: those whose state key
// is new, gone or shows another state in cur than in prev, and the dirty
// ones. ok is false when a key cannot be mapped to a job (then read all).
func changedJobs(prev, cur map[string]string, dirty map[int64]struct{}) (ids []int64, ok bool) {
	set := make(map[int64]struct{}, len(dirty))
	for id := range dirty {
		set[id] = struct{}{}
	}
	add := func(key string) bool {
		id, ok := stateKeyJob(key)
		if ok {
			set[id] = struct{}{}
		}
		return ok
	}
	for k, s := range cur {
		if old, seen := prev[k]; (!seen || old != s) && !add(k) {
			return nil, false
		}
	}
	for k := range prev {
		if _, still := cur[k]; !still && !add(k) {
			return nil, false
		}
	}
	ids = make([]int64, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, true
}

// mergeJobs replaces in cache, for each job read again, every record under
// it (the job, an array's tasks, a heterogeneous job's components) by the
// records read: none when slurmctld no longer knows the job.
func mergeJobs(cache map[int64]planner.Job, read map[int64][]planner.Job) {
	under := func(id int64) bool { _, ok := read[id]; return ok && id != 0 }
	for k, j := range cache {
		if under(j.ID) || under(j.ArrayJobID) || under(j.HetJobID) {
			delete(cache, k)
		}
	}
	for _, recs := range read {
		for _, j := range recs {
			cache[j.ID] = j
		}
	}
}
