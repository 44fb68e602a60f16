package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
	"github.com/strata-hpc/strata/slurm"
)

// fakeCluster is an in-memory Slurm: Snapshot returns a copy of its state,
// Apply changes pending jobs like slurmrestd would (priority, GPU shape,
// admin comment). FailSnapshots makes the next snapshots fail.
type fakeCluster struct {
	mu            sync.Mutex
	snap          planner.Snapshot
	failSnapshots int
	writes        []planner.Decision // decisions really applied
	applyCalls    int
	// skew is ClockSkew's answer.
	skew time.Duration
	// blackhole: every write fails its read-back (posts counts them).
	blackhole  bool
	posts      int
	onSnapshot func() // test hook, called unlocked
	onApply    func() // test hook, called unlocked at the start of Apply
	onWrite    func() // test hook, called (locked) after each applied write
}

// ClockSkew is the fake slurmctld's clock minus this host's (skew).
func (f *fakeCluster) ClockSkew(context.Context) (time.Duration, error) { return f.skew, nil }

// ServesAccounting: the fake slurmrestd serves no /slurmdb.
func (f *fakeCluster) ServesAccounting() bool { return false }

// FinishedJobs is never called on a cluster without accounting.
func (f *fakeCluster) FinishedJobs(context.Context, string, time.Time, time.Time) ([]slurm.FinishedJob, error) {
	return nil, fmt.Errorf("finished jobs: %w", slurm.ErrUnavailable)
}

func newFakeCluster(s *planner.Snapshot) *fakeCluster { return &fakeCluster{snap: *s} }

func (f *fakeCluster) Snapshot(ctx context.Context) (*planner.Snapshot, error) {
	if f.onSnapshot != nil {
		f.onSnapshot()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failSnapshots > 0 {
		f.failSnapshots--
		return nil, fmt.Errorf("snapshot: %w", slurm.ErrUnavailable)
	}
	s := f.snap
	s.Jobs = append([]planner.Job(nil), f.snap.Jobs...)
	return &s, nil
}

func (f *fakeCluster) Apply(ctx context.Context, ds []planner.Decision, o slurm.ApplyOptions) (slurm.ApplyReport, error) {
	if f.onApply != nil {
		f.onApply()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applyCalls++
	rep := slurm.ApplyReport{DryRun: o.DryRun}
	var fenced error
	for _, d := range ds {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("apply: %w", err)
		}
		j := f.job(d.JobID)
		r := slurm.ApplyResult{JobID: d.JobID, Body: fmt.Sprintf(`{"priority":%d,"gpus_per_node":%d}`, d.Priority, d.GPUsPerNode)}
		switch {
		case j == nil:
			r.Outcome, r.Body = decide.SkippedGone, ""
		case d.Action == planner.ActionMarkNonCooperative: // as slurm.Client.Apply: a write to a running job
			switch {
			case j.State != planner.JobRunning:
				r.Outcome, r.Body = decide.SkippedNotRunning, ""
			case o.DryRun:
				r.Outcome = decide.DryRun
			default:
				w, _ := decide.ParseAdminComment(j.AdminComment)
				w.NonCooperative = true
				j.AdminComment = decide.MergeAdminComment(j.AdminComment, w)
				j.NonCooperative = true
				f.writes = append(f.writes, d)
				r.Outcome = decide.Applied
			}
		case d.Action == planner.ActionPreempt: // as slurm.Client.Apply: only opted-in running jobs are signalled
			_, ok := "", false
			if o.Preemptible != nil {
				_, ok = o.Preemptible(*j)
			}
			switch {
			case j.State != planner.JobRunning:
				r.Outcome, r.Body = decide.SkippedNotRunning, ""
			case !ok:
				r.Outcome, r.Body = decide.Refused, ""
			case o.DryRun:
				r.Outcome = decide.DryRun
			default:
				j.Signalled = o.Now
				f.writes = append(f.writes, d)
				r.Outcome = decide.Signalled
			}
		case j.State != planner.JobPending:
			r.Outcome, r.Body = decide.SkippedNotPending, ""
		case o.DryRun:
			r.Outcome = decide.DryRun
		case fenced != nil:
			r.Outcome, r.Body, r.Err = decide.NotSent, "", fenced
		default:
			if o.Fence != nil { // as slurm.Client.Apply: check right before the write
				if err := o.Fence(ctx); err != nil {
					fenced = err
					r.Outcome, r.Body, r.Err = decide.NotSent, "", err
					break
				}
			}
			if f.blackhole { // a slurmrestd that accepts the POST and stores nothing
				r.Outcome, r.Err = decide.Failed, fmt.Errorf("read-back: job %d unchanged", d.JobID)
				f.posts++
				break
			}
			if d.Priority > 0 {
				j.Priority = d.Priority
			}
			if d.GPUsPerNode > 0 {
				j.GPUsPerNode, j.GPUsPerJob, j.Nodes = d.GPUsPerNode, 0, max(1, d.NodeCount)
			}
			j.AdminComment = decide.Written{Workers: d.Workers, PS: d.PS, Rank: d.Rank, Cycle: o.Cycle, Defer: d.NotBefore}.String()
			f.writes = append(f.writes, d)
			r.Outcome = decide.Applied
			if f.onWrite != nil {
				f.onWrite()
			}
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

func (f *fakeCluster) job(id int64) *planner.Job {
	for i := range f.snap.Jobs {
		if f.snap.Jobs[i].ID == id {
			return &f.snap.Jobs[i]
		}
	}
	return nil
}

// Job returns a copy of a job's current state.
func (f *fakeCluster) Job(id int64) planner.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.job(id)
}

func (f *fakeCluster) Writes() []planner.Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]planner.Decision(nil), f.writes...)
}

// fakePostgres is one in-memory "server" shared by the stores of several
// daemons: cycles, and advisory locks owned by sessions. Down makes every
// call fail with db.ErrUnavailable and ends every session (its locks go).
type fakePostgres struct {
	mu      sync.Mutex
	down    bool
	nextID  int64
	cycles  []db.Cycle
	locks   map[string]*fakeLock
	session int
	// latestSample is what LatestSampleTime returns.
	latestSample time.Time
	// finished are the completed jobs FinishedJobs returns.
	finished []db.FinishedJob
	// calibration are the jobs CalibrationJobs returns.
	calibration []db.CalibrationJob
	// outcomes are the finished jobs TrustOutcomes returns.
	outcomes []trust.Outcome
	// claimed are the predictions (from the hint) TrustRunning pairs
	// running jobs with, by job ID.
	claimed map[int64]time.Duration
	// ended are the job records UpsertJobs stored, in order.
	ended []planner.Job
	// blackHole makes lock checks hang until their context ends, as on a
	// connection whose packets are dropped.
	blackHole bool
}

func newFakePostgres() *fakePostgres { return &fakePostgres{locks: map[string]*fakeLock{}} }

func (p *fakePostgres) UpsertJobs(_ context.Context, _ string, jobs []planner.Job, _ map[int64]time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return errFakeDown
	}
	p.ended = append(p.ended, jobs...)
	return nil
}

func (p *fakePostgres) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		p.session++ // a restart ends every session
		p.locks = map[string]*fakeLock{}
	}
}

func (p *fakePostgres) Cycles() []db.Cycle {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]db.Cycle(nil), p.cycles...)
}

var errFakeDown = fmt.Errorf("fake postgres: %w", db.ErrUnavailable)

func (p *fakePostgres) ReserveCycleID(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return 0, errFakeDown
	}
	p.nextID++
	return p.nextID, nil
}

func (p *fakePostgres) SaveCycle(ctx context.Context, c *db.Cycle) error {
	if c.ID == 0 {
		id, err := p.ReserveCycleID(ctx)
		if err != nil {
			return err
		}
		c.ID = id
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return errFakeDown
	}
	for _, x := range p.cycles {
		if x.ID == c.ID {
			return nil
		}
	}
	p.cycles = append(p.cycles, *c)
	return nil
}

func (p *fakePostgres) RewriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (map[int64]int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	out := map[int64]int{}
	for _, c := range p.cycles {
		for _, d := range c.Decisions {
			since, asked := jobs[d.JobID]
			if asked && c.Cluster == cluster && d.Outcome == decide.Applied && d.Resized && !c.StartedAt.Before(since) {
				out[d.JobID]++
			}
		}
	}
	return out, nil
}

func (p *fakePostgres) WriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (map[int64]int, map[int64]int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, nil, errFakeDown
	}
	writes, failed := map[int64]int{}, map[int64]int{}
	for _, c := range p.cycles {
		for _, d := range c.Decisions {
			since, asked := jobs[d.JobID]
			if !asked || c.Cluster != cluster || c.StartedAt.Before(since) {
				continue
			}
			switch d.Outcome {
			case decide.Applied:
				writes[d.JobID]++
			case decide.Failed:
				writes[d.JobID]++
				failed[d.JobID]++
			}
		}
	}
	return writes, failed, nil
}

func (p *fakePostgres) CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.CalibrationJob, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	var out []db.CalibrationJob
	for _, j := range p.calibration {
		if j.End.After(since) && len(out) < limit {
			out = append(out, j)
		}
	}
	return out, nil
}

func (p *fakePostgres) TrustRunning(ctx context.Context, cluster string, jobs []planner.Job, now time.Time) ([]trust.Outcome, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	var out []trust.Outcome
	for _, j := range jobs {
		if pred, ok := p.claimed[j.ID]; ok && j.State == planner.JobRunning && !j.StartTime.IsZero() {
			out = append(out, trust.Outcome{User: j.User, Account: j.Account, JobID: j.ID, End: now,
				Predicted: pred, Real: now.Sub(j.StartTime), GPUs: j.GPUs(), Running: true})
		}
	}
	return out, nil
}

func (p *fakePostgres) TrustOutcomes(ctx context.Context, cluster string, since time.Time, limit int) ([]trust.Outcome, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	var out []trust.Outcome
	for _, o := range p.outcomes {
		if o.End.After(since) && len(out) < limit {
			out = append(out, o)
		}
	}
	return out, nil
}

func (p *fakePostgres) FinishedJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.FinishedJob, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	var out []db.FinishedJob
	for _, j := range p.finished {
		if j.End.After(since) && len(out) < limit {
			out = append(out, j)
		}
	}
	return out, nil
}

func (p *fakePostgres) PreemptionCounts(ctx context.Context, cluster string, since time.Time, jobs []int64) (map[int64]int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, errFakeDown
	}
	want := map[int64]bool{}
	for _, id := range jobs {
		want[id] = true
	}
	out := map[int64]int{}
	for _, c := range p.cycles {
		for _, d := range c.Decisions {
			if want[d.JobID] && c.Cluster == cluster && d.Outcome == decide.Signalled && !c.StartedAt.Before(since) {
				out[d.JobID]++
			}
		}
	}
	return out, nil
}

func (p *fakePostgres) TryLock(ctx context.Context, name string) (Lock, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, false, errFakeDown
	}
	if _, held := p.locks[name]; held {
		return nil, false, nil
	}
	l := &fakeLock{pg: p, name: name, session: p.session}
	p.locks[name] = l
	return l, true, nil
}

type fakeLock struct {
	pg      *fakePostgres
	name    string
	session int
}

func (l *fakeLock) Check(ctx context.Context) error {
	l.pg.mu.Lock()
	if l.pg.blackHole {
		l.pg.mu.Unlock()
		<-ctx.Done()
		return fmt.Errorf("check lock: %w", ctx.Err())
	}
	defer l.pg.mu.Unlock()
	if l.pg.down || l.pg.session != l.session || l.pg.locks[l.name] != l {
		return fmt.Errorf("check lock: %w", db.ErrLockLost)
	}
	return nil
}

func (l *fakeLock) Release(ctx context.Context) error {
	l.pg.mu.Lock()
	defer l.pg.mu.Unlock()
	if l.pg.locks[l.name] == l {
		delete(l.pg.locks, l.name)
	}
	return nil
}

func (p *fakePostgres) PruneCycles(ctx context.Context, cutoff time.Time) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return 0, errFakeDown
	}
	var keep []db.Cycle
	for _, c := range p.cycles {
		if !c.StartedAt.Before(cutoff) {
			keep = append(keep, c)
		}
	}
	n := int64(len(p.cycles) - len(keep))
	p.cycles = keep
	return n, nil
}

func (p *fakePostgres) LatestSampleTime(ctx context.Context, since time.Time) (time.Time, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latestSample, nil
}

func (p *fakePostgres) Close() {}
