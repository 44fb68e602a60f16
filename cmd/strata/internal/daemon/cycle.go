package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// stageError names the step of a cycle that failed (a metrics label).
type stageError struct {
	stage Stage
	err   error
}

func (e *stageError) Error() string { return string(e.stage) + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

// Result is what one cycle did.
type Result struct {
	Snapshot *planner.Snapshot
	Plan     planner.Plan
	// Verdicts are the guards' answers, aligned with Plan.Decisions.
	Verdicts []decide.Verdict
	// Report is what the writer did with the decisions it was given.
	Report slurm.ApplyReport
	// Record is the cycle's audit record (the decisions worth a row).
	Record *db.Cycle
	// Standby: another daemon holds the writer lock; nothing was planned.
	Standby bool
}

// RunOnce runs one cycle — snapshot, plan, guards, writer lock, apply (or
// dry run), audit — as the loop does, and returns what it did; `strata
// plan` uses it, so one-off writes go through the daemon's guards and lock.
// Call Close when done.
func (d *Daemon) RunOnce(ctx context.Context) (Result, error) {
	res, st, err := d.timedCycle(ctx)
	if err == nil && st == cycleStandby {
		res.Standby = true
	}
	return res, err
}

// Close releases the writer lock, flushes the audit records that can be
// flushed (within a few seconds) and closes the store.
func (d *Daemon) Close() {
	d.close()
	if d.st != nil {
		d.st.Close()
		d.st = nil
	}
}

// runCycle runs one cycle for the loop.
func (d *Daemon) runCycle(ctx context.Context) cycleStatus {
	_, st, _ := d.timedCycle(ctx)
	return st
}

// timedCycle runs one cycle and accounts for it in logs and metrics.
func (d *Daemon) timedCycle(ctx context.Context) (Result, cycleStatus, error) {
	t0 := d.deps.Now()
	res, st, err := d.cycle(ctx)
	dur := d.deps.Now().Sub(t0)
	switch {
	case ctx.Err() != nil:
		d.log.Info().Msg("stopping: cycle finished or abandoned")
	case st == cycleStandby:
		d.m.cycles.WithLabelValues(resultStandby).Inc()
	case err != nil:
		stage := StageCycle
		var se *stageError
		if errors.As(err, &se) {
			stage = se.stage
		}
		d.m.cycles.WithLabelValues(resultFailed).Inc()
		d.m.errors.WithLabelValues(string(stage)).Inc()
		d.log.Error().Err(err).Str("stage", string(stage)).Msg("cycle failed; backing off")
	default:
		d.m.cycles.WithLabelValues(resultOK).Inc()
		d.m.cycleDuration.Observe(dur.Seconds())
		d.m.lastSuccess.Set(float64(d.deps.Now().Unix()))
	}
	return res, st, err
}

// cycle is prepare (snapshot, leadership, what was learned, history) →
// decide (plan and guards, package decide) → submit (writer lock, apply)
// → record (audit, metrics).
func (d *Daemon) cycle(ctx context.Context) (Result, cycleStatus, error) {
	var res Result
	in, status, err := d.prepare(ctx, &res)
	if status != cycleOK || err != nil {
		return res, status, err
	}
	dec, err := decide.Decide(ctx, d.policy, in.scoped, in.hist, d.opts.Guard)
	if err != nil {
		return res, cycleFailed, &stageError{StagePlan, err}
	}
	in.planned = d.deps.Now()
	if dec.Plan.Policy == "" {
		dec.Plan.Policy = d.opts.Policy
	}
	res.Plan, res.Verdicts = dec.Plan, dec.Verdicts
	rep, applyErr := d.submit(ctx, in, dec)
	if errors.Is(applyErr, errLockLost) {
		return res, cycleFailed, &stageError{StageLock, applyErr}
	}
	res.Report = rep
	res.Record = d.recordCycle(ctx, in, dec, rep)
	if applyErr != nil && ctx.Err() == nil {
		return res, cycleFailed, &stageError{StageApply, applyErr}
	}
	return res, cycleOK, nil
}

// cycleInput is what prepare hands to the rest of a cycle.
type cycleInput struct {
	cl      Cluster
	snap    *planner.Snapshot // the whole queue
	scoped  *planner.Snapshot // what this daemon plans (Options.Scope)
	inScope int
	hist    decide.History
	id      int64 // the cycle's audit ID (0: unrecorded)
	// start, snapped, planned and applied time the stages.
	start, snapped, planned, applied time.Time
}

// prepare takes the snapshot, settles leadership, refreshes what Strata
// learns from ended runs (history, users' records, calibration) and reads
// the audit history of the jobs in scope. A standby's status is
// cycleStandby.
func (d *Daemon) prepare(ctx context.Context, res *Result) (cycleInput, cycleStatus, error) {
	var in cycleInput
	fail := func(stage Stage, err error) (cycleInput, cycleStatus, error) {
		return in, cycleFailed, &stageError{stage, err}
	}
	cl, err := d.cluster(ctx)
	if err != nil {
		return fail(StageConnect, err)
	}
	in.cl, in.start = cl, d.deps.Now()
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		return fail(StageSnapshot, err)
	}
	in.snap, res.Snapshot = snap, snap
	d.checkClock(ctx, cl)
	in.snapped = d.deps.Now()
	st, err := d.store(ctx)
	if err != nil && d.opts.Enforce {
		return fail(StageDatabase, err)
	}
	if st != nil {
		lctx, cancel := d.dbContext(ctx)
		status, err := d.lead(lctx, st, snap.Cluster)
		cancel()
		if status != cycleOK || err != nil {
			return in, status, err
		}
	}
	d.learn(ctx, cl, st, snap)
	in.scoped, in.inScope = d.opts.Scope.apply(snap)
	hctx, cancel := d.dbContext(ctx)
	in.hist, in.id, err = d.history(hctx, st, in.scoped)
	cancel()
	if err != nil {
		if d.opts.Enforce {
			return fail(StageDatabase, err)
		}
		d.m.errors.WithLabelValues(string(StageDatabase)).Inc()
		d.log.Warn().Err(err).Msg("database unavailable: shadow cycle goes on unrecorded for now")
		in.hist, in.id = decide.History{}, 0
	}
	in.hist.Claims = d.trust.claims
	in.hist.Comments = &d.comments
	return in, cycleOK, nil
}

// learn refreshes what the cycle learns from ended runs: the history of
// unhinted jobs, the users' records and the calibration (which leaves the
// unreliable users out: decide.Records, decide.Calibrate).
func (d *Daemon) learn(ctx context.Context, cl Cluster, st Store, snap *planner.Snapshot) {
	// Runs that just ended are learnt from this cycle (not within the
	// five minutes between reads), as the simulator learns from each run
	// as it ends; slurmdbd's history is left to its own pace.
	if st != nil && d.recordEnded(ctx, st, snap) > 0 {
		d.trust.lastRead, d.calib.lastRead = time.Time{}, time.Time{}
		if src := d.historySource(cl, st); src != nil && src.name() == HistoryStrata {
			d.hist.lastRead = time.Time{}
		}
	}
	d.learnHistory(ctx, cl, st, snap.Cluster, snap.Now)
	if st != nil {
		lctx, cancel := d.dbContext(ctx)
		d.trust.refresh(lctx, st, snap.Cluster, snap.Jobs, snap.Now, d.log)
		cancel()
	}
	if st != nil && d.opts.Calibrate {
		lctx, cancel := d.dbContext(ctx)
		d.calib.exclude = d.trust.unreliable
		d.calib.refresh(lctx, st, snap.Cluster, snap.Now, d.log)
		cancel()
	}
	if d.opts.Calibrate {
		snap.Calibration = d.calib.cal
	}
}

// errLockLost: the writer lock could not be confirmed before writing.
var errLockLost = errors.New("writer lock lost")

// submit hands the decisions the guards let through to the writer: in
// enforce mode under the writer lock, checked before the cycle writes and
// again before every write (a fence); otherwise as a dry run.
func (d *Daemon) submit(ctx context.Context, in cycleInput, dec decide.Result) (slurm.ApplyReport, error) {
	var fence func(context.Context) error
	if d.opts.Enforce {
		lctx, cancel := d.dbContext(ctx)
		err := d.lock.Check(lctx)
		cancel()
		if err != nil {
			d.loseLock()
			return slurm.ApplyReport{}, fmt.Errorf("%w: %w", errLockLost, err)
		}
		// Every write re-checks the lock: a daemon that loses it in the
		// middle of a cycle stops writing at once, not a cycle later.
		lock := d.lock
		fence = func(ctx context.Context) error {
			fctx, cancel := d.dbContext(ctx)
			defer cancel()
			return lock.Check(fctx)
		}
	}
	if err := ctx.Err(); err != nil { // stopping before Apply: abandon, record the decisions as not sent
		return slurm.ApplyReport{}, err
	}
	actx, release := applyContext(ctx)
	defer release()
	rep, err := in.cl.Apply(actx, dec.Send(), slurm.ApplyOptions{DryRun: !d.opts.Enforce, Cycle: in.id,
		Nodes: in.snap.Nodes, Now: in.snap.Now, Fence: fence, Preemptible: preemptible})
	if fenced(rep) {
		d.loseLock()
	}
	return rep, err
}

// recordCycle builds the cycle's audit record, accounts for it in the
// metrics, saves it and does the housekeeping.
func (d *Daemon) recordCycle(ctx context.Context, in cycleInput, dec decide.Result, rep slurm.ApplyReport) *db.Cycle {
	in.applied = d.deps.Now()
	rec := d.record(in.snap, dec.Plan, dec.Jobs, dec.Verdicts, rep, in.id, in.start)
	rec.Inputs.InScope = in.inScope
	d.account(rec, len(dec.Plan.Decisions))
	d.addAlternatives(ctx, in.scoped, rec)
	d.save(ctx, rec)
	d.log.Debug().Dur("snapshot_ms", in.snapped.Sub(in.start)).Dur("plan_ms", in.planned.Sub(in.snapped)).
		Dur("write_ms", in.applied.Sub(in.planned)).Dur("audit_ms", d.deps.Now().Sub(in.applied)).Msg("cycle stages")
	d.housekeeping(ctx)
	return rec
}

// dbContext bounds one round of database calls (Options.DBTimeout): a
// black-holed Postgres must not stall the cycle, and a lock check that
// cannot answer in time counts as a lost lock.
func (d *Daemon) dbContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d.opts.dbTimeout())
}

// fenced reports whether Apply stopped because the lock was lost.
func fenced(rep slurm.ApplyReport) bool {
	for _, r := range rep.Results {
		if r.Outcome == decide.NotSent && r.Err != nil {
			return true
		}
	}
	return false
}

// applyGrace is how long an Apply already under way may go on after the
// daemon is told to stop.
const applyGrace = 5 * time.Second

// applyContext lets an Apply that has started finish after ctx ends
// (SIGTERM), for at most applyGrace: a cycle writes at most
// --max-rewrites-per-cycle jobs, one POST each, so finishing them is cleaner
// than cutting a POST in flight. release must be called when Apply returns.
func applyContext(ctx context.Context) (actx context.Context, release func()) {
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(applyGrace, cancel) })
	return actx, func() { stop(); cancel() }
}

// cluster returns the Slurm client, connecting on first use.
func (d *Daemon) cluster(ctx context.Context) (Cluster, error) {
	if d.cl == nil {
		cl, err := d.deps.Connect(ctx)
		if err != nil {
			return nil, err
		}
		d.cl = cl
	}
	return d.cl, nil
}

// store returns the audit store (nil, nil without a database), opening it
// on first use.
func (d *Daemon) store(ctx context.Context) (Store, error) {
	if d.deps.Open == nil {
		return nil, nil
	}
	if d.st == nil {
		st, err := d.deps.Open(ctx)
		if err != nil {
			d.m.errors.WithLabelValues(string(StageDatabase)).Inc()
			d.log.Warn().Err(err).Msg("database unavailable: shadow cycle not recorded yet")
			return nil, err
		}
		d.st = st
	}
	return d.st, nil
}

// lead makes sure this daemon holds the writer lock for the cluster; it
// returns cycleStandby when another daemon holds it.
func (d *Daemon) lead(ctx context.Context, st Store, clusterName string) (cycleStatus, error) {
	if d.lock != nil {
		if err := d.lock.Check(ctx); err == nil {
			return cycleOK, nil
		}
		d.loseLock() // e.g. Postgres restarted: compete for it again below
	}
	name := d.opts.LockName
	if name == "" {
		name = "strata-run/" + clusterName
	}
	l, ok, err := st.TryLock(ctx, name)
	if err != nil {
		if !d.opts.Enforce {
			// Shadow mode writes nothing to Slurm: plan on, record later.
			d.m.errors.WithLabelValues(string(StageLock)).Inc()
			d.log.Warn().Err(err).Msg("writer lock unavailable: shadow cycle goes on")
			return cycleOK, nil
		}
		return cycleFailed, &stageError{StageLock, err}
	}
	if !ok {
		if !d.standby {
			d.log.Info().Str("lock", name).Msg("another strata daemon holds the writer lock: standing by")
			d.standby = true
		}
		d.m.leader.Set(0)
		return cycleStandby, nil
	}
	d.lock, d.lockName, d.standby = l, name, false
	d.m.leader.Set(1)
	d.log.Info().Str("lock", name).Bool("enforce", d.opts.Enforce).Msg("writer lock taken: this daemon plans the cluster")
	return cycleOK, nil
}

func (d *Daemon) loseLock() {
	if l := d.lock; l != nil {
		// A lock whose check failed is already dropped; one fenced by a
		// failure elsewhere is given up here, never left on a session.
		ctx, cancel := context.WithTimeout(context.Background(), d.opts.dbTimeout())
		_ = l.Release(ctx)
		cancel()
	}
	d.lock = nil
	d.m.leader.Set(0)
	d.log.Error().Str("lock", d.lockName).Msg("writer lock lost: no writes until it is taken again")
}

// save queues rec and stores every queued cycle, oldest first, with a
// context that survives shutdown for a few seconds. Cycles that cannot be
// stored stay queued (at most maxUnsaved) for the next cycle.
func (d *Daemon) save(ctx context.Context, rec *db.Cycle) {
	if d.deps.Open == nil {
		return // no database configured: the log line is the only record
	}
	d.unsaved = append(d.unsaved, rec)
	if over := len(d.unsaved) - maxUnsaved; over > 0 {
		d.log.Warn().Int("dropped", over).Msg("audit queue full: oldest unsaved cycles dropped")
		d.m.errors.WithLabelValues(string(StageAuditDropped)).Add(float64(over))
		d.unsaved = d.unsaved[over:]
	}
	if st, err := d.store(ctx); err != nil || st == nil {
		d.m.unsaved.Set(float64(len(d.unsaved)))
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.opts.dbTimeout())
	defer cancel()
	d.flush(sctx)
}

// maxUnsaved bounds the cycles kept in memory while Postgres is down.
const maxUnsaved = 100

func (d *Daemon) flush(ctx context.Context) {
	for len(d.unsaved) > 0 {
		if err := d.st.SaveCycle(ctx, d.unsaved[0]); err != nil {
			d.m.errors.WithLabelValues(string(StageSave)).Inc()
			d.log.Warn().Err(err).Int("queued", len(d.unsaved)).Msg("save cycle: kept for the next attempt")
			break
		}
		d.unsaved = d.unsaved[1:]
	}
	d.m.unsaved.Set(float64(len(d.unsaved)))
}

// fingerprint identifies a stored decision for de-duplication: predictions
// count to the 10 minutes, so a waiting job's row is refreshed as they move.
// Built with strconv appends: it runs for every job of every cycle.
func fingerprint(c db.CycleDecision) string {
	outcome := string(c.Outcome)
	if c.Outcome.InEffect() {
		outcome = "in-effect" // "unchanged" after "applied" is the steady state
	}
	b := make([]byte, 0, 128)
	b = append(b, c.Action...)
	for _, n := range []int64{int64(c.Workers), int64(c.PS), int64(c.GPUsPerNode), int64(c.NodeCount),
		int64(c.Rank), c.Priority, c.PredictedStart.Truncate(10 * time.Minute).Unix(),
		c.PredictedEnd.Truncate(10 * time.Minute).Unix()} {
		b = strconv.AppendInt(append(b, '|'), n, 10)
	}
	for _, r := range c.Reasons {
		if r == planner.ReasonAllocationChanged {
			continue // gone once the write took effect: not a new decision
		}
		b = append(append(b, '|'), r...)
	}
	b = append(append(append(append(b, '|'), outcome...), '|'), c.Guard...)
	return string(b)
}

// housekeeping updates the ingestion-lag gauge every cycle and prunes the
// audit trail older than --audit-retention once an hour. Failures are
// logged and counted; they never fail the cycle.
func (d *Daemon) housekeeping(ctx context.Context) {
	hk := d.st
	if hk == nil {
		return
	}
	ctx, cancel := d.dbContext(ctx)
	defer cancel()
	now := d.deps.Now()
	ts, err := hk.LatestSampleTime(ctx, now.Add(-24*time.Hour))
	if err == nil && ts.IsZero() {
		// Nothing in the last day: look back over the retention period
		// (30 days by default) so that old data shows its real age, not 0.
		ts, err = hk.LatestSampleTime(ctx, now.Add(-31*24*time.Hour))
	}
	switch {
	case err != nil:
		d.log.Debug().Err(err).Msg("ingestion lag unknown")
	case !ts.IsZero():
		d.m.ingestLag.Set(now.Sub(ts).Seconds())
	}
	if d.opts.AuditRetention <= 0 || now.Sub(d.lastPrune) < time.Hour {
		return
	}
	d.lastPrune = now
	n, err := hk.PruneCycles(ctx, now.Add(-d.opts.AuditRetention))
	if err != nil {
		d.m.errors.WithLabelValues(string(StagePrune)).Inc()
		d.log.Warn().Err(err).Msg("prune audit trail")
		return
	}
	if n > 0 {
		d.log.Info().Int64("cycles", n).Str("retention", d.opts.AuditRetention.String()).Msg("audit trail pruned")
	}
}
