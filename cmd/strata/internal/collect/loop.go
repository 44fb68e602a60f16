package collect

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
)

// collector owns the sampling loop of `strata collect`.
type collector struct {
	src     dcgm.Source
	mapper  Mapper // nil: samples only
	paced   bool   // the source keeps its own time (replay): no ticker
	store   *db.Store
	in      *db.Ingester
	spool   *db.Spool
	metrics *Metrics // nil: none
	tracker *dcgm.Tracker
	log     zerolog.Logger
	cluster string

	interval, flushEvery, rollupEvery time.Duration
	batchSamples                      int

	pending    pending // the batch being filled, with what earlier batches could not store
	lastFlush  time.Time
	lastRollup time.Time
	reportFrom time.Time // oldest sample written since the last report-rollup refresh
	lastTime   time.Time // time of the latest sweep placed (never goes back)
	stepped    bool      // the sweep clock is behind lastTime (logged once per step)
	stats      collectStats
}

type collectStats struct {
	sweeps, samples, batches, spooled, reduced, replayed, quarantined, skipped int
}

// run samples until ctx ends or a finite source is exhausted, then writes
// what is left and refreshes the rollups of the jobs it saw.
func (co *collector) run(ctx context.Context) error {
	var tick <-chan time.Time
	if !co.paced {
		t := time.NewTicker(co.interval)
		defer t.Stop()
		tick = t.C
	}
	co.lastFlush, co.lastRollup = time.Now(), time.Now()
	for {
		err := co.step(ctx)
		if errors.Is(err, io.EOF) {
			_, closed := co.tracker.Observe(co.lastTime, nil) // the recording ended
			co.pending.changed(nil, closed)
			return co.finish(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			return co.finish(context.WithoutCancel(ctx))
		}
		if err != nil {
			return err
		}
		if tick != nil {
			select {
			case <-ctx.Done():
				return co.finish(context.WithoutCancel(ctx))
			case <-tick:
			}
		}
	}
}

// step takes one sweep, attributes it, and flushes when the batch is due.
func (co *collector) step(ctx context.Context) error {
	samples, err := co.src.Snapshot(ctx)
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return err
	}
	if err != nil && len(samples) == 0 {
		co.log.Warn().Err(err).Msg("sample source failed; retrying next interval")
		return nil
	}
	if err != nil {
		co.log.Warn().Err(err).Int("samples", len(samples)).Msg("some targets failed")
	}
	if len(samples) == 0 {
		return nil
	}
	now := samples[0].Time
	co.stats.sweeps++
	co.stats.samples += len(samples)
	co.metrics.sweep(now)
	if co.clockWentBack(now) {
		// Samples and holdings at a time already passed cannot be placed:
		// stored between earlier samples they would read as a counter
		// reset, and an assignment could close before it opened.
		kept := co.pending.addSamples(samples)
		co.stats.skipped += len(samples) - kept
		co.metrics.skipped(len(samples) - kept)
	} else {
		co.lastTime = now
		co.pending.addSamples(samples)
		if err := co.attribute(ctx, now, samples); err != nil {
			co.log.Warn().Err(err).Msg("GPU→job mapping failed; keeping the previous assignments")
		}
	}
	if len(co.pending.b.Samples) >= co.batchSamples || time.Since(co.lastFlush) >= co.flushEvery {
		return co.flush(ctx)
	}
	return nil
}

// clockWentBack reports whether a sweep at now is before the latest one
// placed (by this run, or by the assignments it resumed), logging the first
// sweep of each step back.
func (co *collector) clockWentBack(now time.Time) bool {
	latest := co.tracker.Latest()
	if co.lastTime.After(latest) {
		latest = co.lastTime
	}
	back := now.Before(latest)
	if back && !co.stepped {
		co.log.Warn().Time("sweep", now).Time("latest", latest).Dur("behind", latest.Sub(now)).
			Msg("sweep clock went back: samples older than a GPU's latest are skipped and holdings are not placed until it catches up")
	}
	co.stepped = back
	return back
}

// attribute turns the mapper's view into assignment changes and job rows.
func (co *collector) attribute(ctx context.Context, now time.Time, samples []dcgm.Sample) error {
	if co.mapper == nil {
		return nil
	}
	m, err := co.mapper.Mapping(ctx, now, samples)
	if err != nil {
		return err
	}
	gpus, missing := m.GPUs, []dcgm.JobGPU(nil)
	if !allResolved(gpus) {
		gpus, missing = dcgm.ResolveUUIDs(m.GPUs, samples, m.Kind)
	}
	for _, j := range missing {
		co.log.Debug().Int64("job", j.Job).Str("host", j.Host).Int("index", j.Index).Msg("GPU of job not among samples")
	}
	opened, closed := co.tracker.Observe(now, gpus)
	co.pending.changed(opened, closed)
	for _, j := range m.Jobs {
		end, ok := m.Ends[j.ID]
		co.pending.job(j, end, ok)
	}
	return nil
}

func allResolved(g []dcgm.JobGPU) bool {
	for _, j := range g {
		if j.UUID == "" {
			return false
		}
	}
	return true
}

// flush writes the batch (or spools it, whole or reduced) and refreshes
// rollups when due. What could not be kept at all is carried into the next
// batch: assignments and job states are never dropped.
func (co *collector) flush(ctx context.Context) error {
	co.lastFlush = time.Now()
	p := &co.pending
	if p.empty() {
		return nil
	}
	p.b.Cluster = co.cluster
	for _, smp := range p.b.Samples { // hours whose report rollups are due
		if co.reportFrom.IsZero() || smp.Time.Before(co.reportFrom) {
			co.reportFrom = smp.Time
		}
	}
	n := len(p.b.Samples)
	res, err := co.in.WriteOrReduce(ctx, p.b, p.reduce)
	co.metrics.batch(n, res, err, time.Now())
	co.metrics.spool(co.spool.Stats())
	co.stats.replayed += res.Replayed
	co.stats.quarantined += res.Quarantined
	co.stats.batches++
	switch {
	case err != nil:
		co.log.Error().Err(err).Int("samples", n).Int("assignments", len(p.b.Assignments)).Int("jobs", len(p.b.Jobs)).
			Msg("batch not stored nor spooled: its samples are lost; its assignment and job changes go with the next batch")
		p.carry()
		return nil
	case res.Spooled:
		co.stats.spooled++
		co.log.Warn().Err(res.Cause).Str("sqlstate", db.SQLState(res.Cause)).Int("samples", n).
			Msg("database cannot take the batch now; batch spooled")
	case res.Reduced:
		co.stats.reduced++
		co.log.Error().Err(res.Cause).Int("samples", n).Int("samples_kept", res.ReducedSamples).Int("assignments", len(p.b.Assignments)).
			Int("jobs", len(p.b.Jobs)).Msg("spool full: batch spooled reduced to its assignment and job changes and the samples per-job energy needs")
	}
	p.stored(res.Reduced)
	if !res.Spooled && !res.Reduced && time.Since(co.lastRollup) >= co.rollupEvery {
		co.rollup(ctx)
	}
	return nil
}

// rollup refreshes the per-job energy rollups.
func (co *collector) rollup(ctx context.Context) {
	co.lastRollup = time.Now()
	// The hourly per-job-per-GPU rollups behind reports, for the hours the
	// batches written since the last refresh touched (a drained spool included:
	// the ingester replays it before any new batch).
	if co.reportFrom.IsZero() {
		return
	}
	rows, err := co.store.RefreshReportRollups(ctx, co.reportFrom, co.lastTime.Add(time.Second), 0)
	if err != nil {
		co.log.Warn().Err(err).Time("from", co.reportFrom).Msg("report rollup refresh failed; will retry")
		return
	}
	co.log.Debug().Time("from", co.reportFrom).Int64("rows", rows).Msg("report rollups refreshed")
	co.reportFrom = time.Time{}
}

// finish writes the last batch, drains the spool, and rolls up.
func (co *collector) finish(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := co.flush(ctx); err != nil {
		return err
	}
	var res db.WriteResult
	_, err := co.in.FlushResult(ctx, &res)
	co.stats.replayed += res.Replayed
	co.stats.quarantined += res.Quarantined
	co.metrics.replayed(res, time.Now())
	co.metrics.spool(co.spool.Stats())
	if err == nil {
		co.lastRollup = time.Time{}
		co.rollup(ctx)
	}
	co.log.Info().Int("sweeps", co.stats.sweeps).Int("samples", co.stats.samples).Int("batches", co.stats.batches).
		Int("spooled", co.stats.spooled).Int("reduced", co.stats.reduced).Int("replayed", co.stats.replayed).
		Int("quarantined", co.stats.quarantined).Int("skipped", co.stats.skipped).Msg("collect finished")
	if err != nil {
		co.log.Warn().Err(err).Msg("spooled batches remain; they are written on the next start")
	}
	if a, j := len(co.pending.b.Assignments), len(co.pending.b.Jobs); a+j > 0 {
		co.log.Error().Int("assignments", a).Int("jobs", j).
			Msg("assignment and job changes neither stored nor spooled at exit: open assignments are closed at the next start")
	}
	return nil
}
