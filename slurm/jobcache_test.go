package slurm

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
)

func TestStateKeyJob(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want int64
		ok   bool
	}{
		{"123", 123, true},
		{"123_4", 123, true},     // an array task: its array
		{"123_[4-7]", 123, true}, // an array's pending tasks
		{"101+1", 100, true},     // a heterogeneous component: its leader
		{"100+0", 100, true},     // the leader itself
		{"", 0, false},
		{"abc", 0, false},
		{"5+9", 0, false}, // an offset past the ID
		{"_4", 0, false},
	} {
		got, ok := stateKeyJob(tc.key)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("stateKeyJob(%q) = %d, %v; want %d, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

func TestChangedJobs(t *testing.T) {
	prev := map[string]string{"1": "RUNNING", "2": "PENDING", "3": "PENDING", "10_1": "RUNNING", "10_2": "PENDING"}
	for _, tc := range []struct {
		name  string
		cur   map[string]string
		dirty []int64
		want  []int64
		ok    bool
	}{
		{"nothing changed", prev, nil, []int64{}, true},
		{"a new job", with(prev, "4", "PENDING"), nil, []int64{4}, true},
		{"a job gone", without(prev, "2"), nil, []int64{2}, true},
		{"a job started", with(prev, "3", "RUNNING"), nil, []int64{3}, true},
		{"an array task started: the array", with(prev, "10_2", "RUNNING"), nil, []int64{10}, true},
		{"an array task gone: the array", without(prev, "10_1"), nil, []int64{10}, true},
		{"a heterogeneous component: its leader", with(prev, "21+1", "PENDING"), nil, []int64{20}, true},
		{"written by this client", prev, []int64{2}, []int64{2}, true},
		{"changed and written, once, sorted", with(with(prev, "3", "RUNNING"), "4", "PENDING"), []int64{3, 1}, []int64{1, 3, 4}, true},
		{"an unknown key form: read all", with(prev, "x", "PENDING"), nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dirty := map[int64]struct{}{}
			for _, id := range tc.dirty {
				dirty[id] = struct{}{}
			}
			got, ok := changedJobs(prev, tc.cur, dirty)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); ok && diff != "" {
				t.Errorf("jobs to read (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeJobs(t *testing.T) {
	cache := func() map[int64]planner.Job {
		return byID(
			planner.Job{ID: 1, State: planner.JobRunning},
			planner.Job{ID: 2, State: planner.JobPending},
			planner.Job{ID: 10, ArrayJobID: 10, State: planner.JobPending}, // array 10's pending tasks
			planner.Job{ID: 11, ArrayJobID: 10, State: planner.JobRunning}, // its task 1
			planner.Job{ID: 20, HetJobID: 20, State: planner.JobPending},
			planner.Job{ID: 21, HetJobID: 20, State: planner.JobPending},
		)
	}
	for _, tc := range []struct {
		name string
		read map[int64][]planner.Job
		want []int64 // IDs left, with the state of the records read
	}{
		{"nothing read", nil, []int64{1, 2, 10, 11, 20, 21}},
		{"a job gone", map[int64][]planner.Job{2: nil}, []int64{1, 10, 11, 20, 21}},
		{"a new job", map[int64][]planner.Job{3: {{ID: 3, State: planner.JobPending}}}, []int64{1, 2, 3, 10, 11, 20, 21}},
		{"an array: every record replaced", map[int64][]planner.Job{10: {
			{ID: 10, ArrayJobID: 10, State: planner.JobPending}, {ID: 12, ArrayJobID: 10, State: planner.JobRunning}}},
			[]int64{1, 2, 10, 12, 20, 21}}, // task 11 ended and was purged, task 12 started
		{"an array gone", map[int64][]planner.Job{10: nil}, []int64{1, 2, 20, 21}},
		{"a heterogeneous job gone", map[int64][]planner.Job{20: nil}, []int64{1, 2, 10, 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache()
			mergeJobs(c, tc.read)
			got := make([]int64, 0, len(c))
			for id := range c {
				got = append(got, id)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("jobs left (-want +got):\n%s", diff)
			}
			for _, recs := range tc.read {
				for _, j := range recs {
					if c[j.ID].State != j.State {
						t.Errorf("job %d: state %s, want the one read (%s)", j.ID, c[j.ID].State, j.State)
					}
				}
			}
		})
	}
}

// fakeJobsAPI is a slurmctld of plain jobs behind the three reads of
// readJobs; it counts them. Other restAPI methods are not used here.
type fakeJobsAPI struct {
	restAPI
	mu                   sync.Mutex
	queue                map[int64]planner.Job
	full, states, perJob int
}

func (f *fakeJobsAPI) jobs(context.Context) ([]planner.Job, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.full++
	out := make([]planner.Job, 0, len(f.queue))
	for _, j := range f.queue {
		out = append(out, j)
	}
	return out, "c", nil
}

func (f *fakeJobsAPI) jobStates(context.Context) (map[string]string, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.states++
	out := map[string]string{}
	for id, j := range f.queue {
		out[strconv.FormatInt(id, 10)] = string(j.State)
	}
	return out, 80 * int64(len(out)), nil
}

func (f *fakeJobsAPI) jobRecords(_ context.Context, id int64) ([]planner.Job, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.perJob++
	j, ok := f.queue[id]
	if !ok {
		return nil, 0, fmt.Errorf("read job %d: %w", id, ErrNotFound)
	}
	return []planner.Job{j}, 100, nil
}

func (f *fakeJobsAPI) set(j planner.Job) { f.mu.Lock(); f.queue[j.ID] = j; f.mu.Unlock() }
func (f *fakeJobsAPI) drop(id int64)     { f.mu.Lock(); delete(f.queue, id); f.mu.Unlock() }

// TestReadJobsIncremental: between full reads a snapshot's jobs equal a
// full read's after submissions, ends, starts and this client's writes,
// with one request per changed job; a change that keeps a job's state
// shows at the next full read; off, every read is full.
func TestReadJobsIncremental(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := &fakeJobsAPI{queue: map[int64]planner.Job{}}
	for id := int64(1); id <= 100; id++ {
		f.queue[id] = planner.Job{ID: id, State: planner.JobPending, Comment: "v1"}
	}
	c := &Client{api: f, log: zerolog.Nop(), now: func() time.Time { return now }}
	c.SetJobsFullReadEvery(10 * time.Minute)
	read := func() ([]planner.Job, jobsRead) {
		t.Helper()
		jobs, _, how, err := c.readJobs(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(jobs, func(a, b planner.Job) int { return int(a.ID - b.ID) })
		return jobs, how
	}
	truth := func() []planner.Job {
		out := make([]planner.Job, 0, len(f.queue))
		for _, j := range f.queue {
			out = append(out, j)
		}
		slices.SortFunc(out, func(a, b planner.Job) int { return int(a.ID - b.ID) })
		return out
	}
	if _, how := read(); !how.full {
		t.Fatal("first read not full")
	}
	f.set(planner.Job{ID: 101, State: planner.JobPending, Comment: "new"}) // submitted
	f.drop(5)                                                              // ended and purged
	f.set(planner.Job{ID: 7, State: planner.JobRunning, Comment: "v1"})    // started
	f.set(planner.Job{ID: 9, State: planner.JobPending, Priority: 500})    // written by Strata:
	c.jobCache.markDirty(9)                                                // (updateJob marks it)
	now = now.Add(time.Minute)
	got, how := read()
	if how.full || how.reread != 4 {
		t.Errorf("read %+v, want incremental with 4 jobs read again", how)
	}
	if diff := cmp.Diff(truth(), got); diff != "" {
		t.Errorf("incremental read differs from the jobs (-want +got):\n%s", diff)
	}
	if f.full != 1 || f.perJob != 4 {
		t.Errorf("%d full reads and %d single reads, want 1 and 4", f.full, f.perJob)
	}

	// A user's update that keeps the state: unseen until the next full read.
	f.set(planner.Job{ID: 3, State: planner.JobPending, Comment: "v2"})
	now = now.Add(time.Minute)
	if got, _ := read(); got[2].Comment != "v1" {
		t.Errorf("job 3's comment %q before the full read: the incremental read saw a change it cannot see", got[2].Comment)
	}
	now = now.Add(10 * time.Minute)
	got, how = read()
	if !how.full {
		t.Errorf("read %+v 12 minutes after the full read, want full", how)
	}
	if diff := cmp.Diff(truth(), got); diff != "" {
		t.Errorf("full read differs from the jobs (-want +got):\n%s", diff)
	}

	// Many changes at once: one full read instead of one request each.
	for id := int64(200); id < 260; id++ {
		f.set(planner.Job{ID: id, State: planner.JobPending})
	}
	now = now.Add(time.Minute)
	if _, how := read(); !how.full {
		t.Errorf("read %+v after 60 submissions to 100 jobs, want full", how)
	}

	// Off: every read is full.
	c.SetJobsFullReadEvery(0)
	before := f.full
	read()
	read()
	if f.full != before+2 {
		t.Errorf("%d full reads with incremental reads off, want 2", f.full-before)
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	return out
}

func without(m map[string]string, k string) map[string]string {
	out := map[string]string{}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	return out
}

func byID(jobs ...planner.Job) map[int64]planner.Job {
	out := map[int64]planner.Job{}
	for _, j := range jobs {
		out[j.ID] = j
	}
	return out
}

// TestReadJobsIncrementalByThemselves (issue 35.3): with the shipped
// automatic setting, a small queue is read in full at every snapshot (GET
// /jobs/state only at the first, which does not know the queue's size yet);
// once a full read saw at least the threshold,
// snapshots go incremental with a full read every interval; when the
// queue shrinks below it again, reads are full again.
func TestReadJobsIncrementalByThemselves(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := &fakeJobsAPI{queue: map[int64]planner.Job{}}
	for id := int64(1); id <= 50; id++ {
		f.queue[id] = planner.Job{ID: id, State: planner.JobPending}
	}
	c := &Client{api: f, log: zerolog.Nop(), now: func() time.Time { return now }}
	c.SetJobsIncrementalAbove(100, 5*time.Minute)
	read := func() jobsRead {
		t.Helper()
		now = now.Add(time.Minute)
		jobs, _, how, err := c.readJobs(context.Background())
		if err != nil || len(jobs) != len(f.queue) {
			t.Fatalf("read %d jobs of %d: %v", len(jobs), len(f.queue), err)
		}
		return how
	}
	for range 3 {
		if how := read(); !how.full {
			t.Fatalf("50 jobs: read %+v, want full", how)
		}
	}
	if f.states != 1 {
		t.Errorf("%d state reads on a small queue, want the first snapshot's only", f.states)
	}
	for id := int64(51); id <= 150; id++ {
		f.set(planner.Job{ID: id, State: planner.JobPending})
	}
	if how := read(); !how.full { // saw 150: the next goes incremental
		t.Fatalf("read %+v, want full", how)
	}
	if how := read(); !how.full { // the cache's first read is full
		t.Fatalf("read %+v, want the cache's full read", how)
	}
	f.set(planner.Job{ID: 7, State: planner.JobRunning})
	if how := read(); how.full || how.reread != 1 {
		t.Errorf("read %+v on 150 jobs, want incremental with 1 job read again", how)
	}
	now = now.Add(5 * time.Minute)
	if how := read(); !how.full {
		t.Errorf("read %+v after the interval, want full", how)
	}
	for id := int64(11); id <= 150; id++ {
		f.drop(id)
	}
	read() // a full read or an incremental one that sees the jobs gone
	now = now.Add(5 * time.Minute)
	read() // full: counts 10
	before := f.states
	if how := read(); !how.full || f.states != before {
		t.Errorf("read %+v after the queue shrank to 10, want full without a state read", how)
	}
}

// A daemon started on a large queue: its first snapshot reads the states
// and every job into the cache, so the second is incremental (make
// bench-queue at 10,000 jobs: the second cycle read the whole 74 MiB queue
// again, 10 s, because the first read did not know the queue's size and
// kept nothing).
func TestFirstReadOfALargeQueueFillsTheCache(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := &fakeJobsAPI{queue: map[int64]planner.Job{}}
	for id := int64(1); id <= 150; id++ {
		f.queue[id] = planner.Job{ID: id, State: planner.JobPending}
	}
	c := &Client{api: f, log: zerolog.Nop(), now: func() time.Time { return now }}
	c.SetJobsIncrementalAbove(100, 5*time.Minute)
	for i, want := range []bool{true, false, false} {
		now = now.Add(time.Minute)
		jobs, _, how, err := c.readJobs(context.Background())
		if err != nil || len(jobs) != 150 {
			t.Fatalf("snapshot %d: %d jobs (%v)", i+1, len(jobs), err)
		}
		if how.full != want {
			t.Errorf("snapshot %d: full read %v, want %v", i+1, how.full, want)
		}
	}
}
