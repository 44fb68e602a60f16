// Package daemon is Strata's plan cycle and its loop: snapshot → plan →
// guards → writer lock → apply → audit record, every interval (Run), or
// once (RunOnce, for `strata plan`). Both commands write through the same
// guards (package decide) and the same one-writer lock. It also builds the
// loop's lazy connections (SlurmConnector, StoreOpener) and serves its
// Prometheus metrics beside the loop (RunWithMetrics).
package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
	"github.com/strata-hpc/strata/slurm"
)

// Cluster is what the daemon needs from Slurm; *slurm.Client satisfies it.
type Cluster interface {
	// Snapshot reads the queue, nodes and partitions.
	Snapshot(ctx context.Context) (*planner.Snapshot, error)
	// Apply writes (or, with DryRun, computes) the update decisions.
	Apply(ctx context.Context, ds []planner.Decision, o slurm.ApplyOptions) (slurm.ApplyReport, error)
	// AccountingHistory reads slurmdbd through slurmrestd, where it is
	// served (ServesAccounting false: not served).
	AccountingHistory
	// ClockSkew is slurmctld's clock minus this host's.
	ClockSkew(ctx context.Context) (time.Duration, error)
}

// Store is what the daemon needs from Postgres; StoreOf adapts *db.Store.
type Store interface {
	// ReserveCycleID numbers the next cycle.
	ReserveCycleID(ctx context.Context) (int64, error)
	// SaveCycle stores a cycle; saving the same ID twice stores it once.
	SaveCycle(ctx context.Context, c *db.Cycle) error
	// RewriteCounts says how often each job (ID → submit time) was
	// rewritten already.
	RewriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (map[int64]int, error)
	// WriteCounts says how many writes each job (ID → submit time) got
	// since its submission, and how many of them failed.
	WriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (writes, failed map[int64]int, err error)
	// FinishedJobs lists the jobs that completed after since, oldest first.
	FinishedJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.FinishedJob, error)
	// CalibrationJobs lists the jobs that completed after since, oldest
	// first, with what the planner said about them and what they measured.
	CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.CalibrationJob, error)
	// TrustOutcomes lists the jobs that finished after since, oldest
	// first, with their prediction before their user's correction.
	TrustOutcomes(ctx context.Context, cluster string, since time.Time, limit int) ([]trust.Outcome, error)
	// TrustRunning pairs the running jobs among jobs with their
	// prediction before their user's correction, as run so far at now.
	TrustRunning(ctx context.Context, cluster string, jobs []planner.Job, now time.Time) ([]trust.Outcome, error)
	// UpsertJobs records Slurm jobs; the daemon stores the runs slurmctld
	// reports ended (endedRecorder).
	UpsertJobs(ctx context.Context, cluster string, jobs []planner.Job, end map[int64]time.Time) error
	// PreemptionCounts says how often each job was signalled since since.
	PreemptionCounts(ctx context.Context, cluster string, since time.Time, jobs []int64) (map[int64]int, error)
	// TryLock takes the writer lock called name once; false when another
	// process holds it.
	TryLock(ctx context.Context, name string) (Lock, bool, error)
	// PruneCycles deletes the audit trail older than cutoff.
	PruneCycles(ctx context.Context, cutoff time.Time) (int64, error)
	// LatestSampleTime is the newest GPU sample after since (zero: none).
	LatestSampleTime(ctx context.Context, since time.Time) (time.Time, error)
	// Close releases the connections.
	Close()
}

// Lock is a held "one writer" lock.
type Lock interface {
	// Check errs when the lock is no longer held (then it is dropped).
	Check(ctx context.Context) error
	// Release gives the lock up; safe on a lost lock.
	Release(ctx context.Context) error
}

// StoreOf makes *db.Store a Store.
func StoreOf(s *db.Store) Store { return storeAdapter{s} }

type storeAdapter struct{ *db.Store }

func (s storeAdapter) TryLock(ctx context.Context, name string) (Lock, bool, error) {
	l, ok, err := s.Store.TryLock(ctx, name)
	if !ok || err != nil {
		return nil, ok, err
	}
	return l, true, nil
}

// Deps are the daemon's connections, built lazily so that a slurmrestd or
// Postgres that is down at start only delays the first cycle.
type Deps struct {
	// Connect builds the Slurm client; called until it succeeds.
	Connect func(ctx context.Context) (Cluster, error)
	// Open builds the store; nil when no database is configured (then
	// only shadow cycles are possible, and nothing is recorded).
	Open func(ctx context.Context) (Store, error)
	// Reload re-reads the configuration (SIGHUP); nil = not supported.
	Reload func() (Options, error)
	// Signals delivers SIGHUP (reload) and SIGUSR1 (run a cycle now).
	Signals <-chan os.Signal
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Daemon runs plan cycles. Only its loop goroutine touches its fields.
type Daemon struct {
	log    zerolog.Logger
	opts   Options
	deps   Deps
	m      *Metrics
	policy planner.Policy
	alts   []namedPolicy

	cl       Cluster
	st       Store
	lock     Lock
	lockName string
	standby  bool // logged "standby" already
	// heartbeatPeriod overrides db.LockHeartbeat (tests); see lease.go.
	heartbeatPeriod time.Duration

	lastStored map[int64]string // job → fingerprint of its last stored decision
	unsaved    []*db.Cycle      // cycles waiting for Postgres, oldest first
	lastPrune  time.Time
	lastSkew   time.Time   // when the clocks were last compared
	hist       learner     // completed jobs, for the duration predictor
	calib      calibrator  // finished jobs' measurements, for Snapshot.Calibration
	trust      trustKeeper // each user's record, for decide.History.Claims
	// comments keeps each job's admin comment as the guards parsed it,
	// from one cycle to the next (cycles run one at a time).
	comments decide.Comments
	ended    endedRecorder
}

type namedPolicy struct {
	name string
	p    planner.Policy
}

// New validates the options and builds the policies.
func New(log zerolog.Logger, o Options, deps Deps, m *Metrics) (*Daemon, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	d := &Daemon{log: log, deps: deps, m: m, lastStored: map[int64]string{}}
	if err := d.setOptions(o); err != nil {
		return nil, err
	}
	return d, nil
}

// setOptions installs (new) options: policies are rebuilt, metrics updated.
func (d *Daemon) setOptions(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Enforce && d.deps.Open == nil {
		return errors.New("enforce mode needs a database (the audit trail and the one-writer lock): set --database-url")
	}
	po := o.plannerOptions()
	if po.Predictor == nil {
		// Jobs without a model hint are timed from the history of similar
		// jobs (Helios' rule) once the daemon has read it.
		po.Predictor = d.hist.predictor()
	}
	po.Run = planConcurrently
	p, err := planner.NewPolicy(o.Policy, po)
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	var alts []namedPolicy
	for _, name := range o.Compare {
		ap, err := planner.NewPolicy(name, po)
		if err != nil {
			return fmt.Errorf("--compare: %w", err)
		}
		alts = append(alts, namedPolicy{name, ap})
	}
	d.opts, d.policy, d.alts = o, p, alts
	d.m.setMode(o.Enforce)
	return nil
}

// Metrics returns the daemon's metrics (for a /metrics endpoint).
func (d *Daemon) Metrics() *Metrics { return d.m }

// cycleStatus is how a cycle ended, for the loop's pacing.
type cycleStatus int

const (
	cycleOK      cycleStatus = iota // planned (and applied, recorded)
	cycleFailed                     // back off, then retry
	cycleStandby                    // another daemon holds the lock
)

// Run is the daemon's loop: a cycle, then wait for the interval (or the
// back-off after a failure, or the standby poll), a signal, or the end.
// It returns nil when ctx is cancelled (SIGTERM) or after opts.Cycles
// successful cycles; a cycle in progress is finished or abandoned cleanly.
func (d *Daemon) Run(ctx context.Context) error {
	defer d.Close()
	done, backoff := 0, time.Duration(0)
	for {
		st := d.runCycle(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := d.opts.Interval
		switch st {
		case cycleOK:
			done, backoff = done+1, 0
			if d.opts.Cycles > 0 && done >= d.opts.Cycles {
				return nil
			}
		case cycleStandby:
			wait, backoff = d.opts.StandbyPoll, 0
		case cycleFailed:
			backoff = min(max(2*backoff, time.Second), d.opts.MaxBackoff)
			wait = backoff
		}
		if !d.wait(ctx, wait) {
			return nil
		}
	}
}

// wait sleeps for dur; SIGHUP reloads the configuration and SIGUSR1 cuts
// the wait short. A leader keeps its lock's lease meanwhile (lease.go). It
// returns false when ctx ends.
func (d *Daemon) wait(ctx context.Context, dur time.Duration) bool {
	t := time.NewTimer(dur)
	defer t.Stop()
	beat := time.NewTicker(d.heartbeatEvery())
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-beat.C:
			d.heartbeat(ctx)
		case s := <-d.deps.Signals:
			if s == syscall.SIGHUP {
				d.reload()
				continue
			}
			d.log.Info().Str("signal", s.String()).Msg("cycle requested")
			return true
		}
	}
}

func (d *Daemon) reload() {
	if d.deps.Reload == nil {
		return
	}
	o, err := d.deps.Reload()
	if err == nil {
		err = d.setOptions(o)
	}
	if err != nil {
		d.m.errors.WithLabelValues(string(StageReload)).Inc()
		d.log.Error().Err(err).Msg("reload configuration: keeping the previous one")
		return
	}
	d.log.Info().Str("policy", o.Policy).Bool("enforce", o.Enforce).Str("interval", o.Interval.String()).Msg("configuration reloaded")
}

// close releases the lock and flushes what can be flushed, within a few
// seconds, whatever the state of ctx.
func (d *Daemon) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if d.st != nil && len(d.unsaved) > 0 {
		d.flush(ctx)
	}
	if d.lock != nil {
		if err := d.lock.Release(ctx); err != nil {
			d.log.Warn().Err(err).Msg("release writer lock")
		}
		d.lock = nil
		d.m.leader.Set(0)
	}
}

// planConcurrently plans groups of islands (partitions that share no node
// and no burst-buffer pool) in goroutines of their own, joined before the
// plan returns (planner.Options.Run): the plan is the one a sequential run
// gives.
func planConcurrently(n int, plan func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan(i)
		}()
	}
	wg.Wait()
}
