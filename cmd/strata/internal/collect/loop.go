package collect

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
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

	batch      db.Batch
	lastFlush  time.Time
	lastRollup time.Time
	reportFrom time.Time // oldest sample written since the last report-rollup refresh
	lastTime   time.Time // time of the latest sweep
	jobsSent   map[int64]planner.JobState
	stats      collectStats
}

type collectStats struct {
	sweeps, samples, batches, spooled, replayed int
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
			co.batch.Assignments = append(co.batch.Assignments, closed...)
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
	co.lastTime = now
	co.stats.sweeps++
	co.stats.samples += len(samples)
	co.metrics.sweep(now)
	co.batch.Samples = append(co.batch.Samples, samples...)
	if err := co.attribute(ctx, now, samples); err != nil {
		co.log.Warn().Err(err).Msg("GPU→job mapping failed; keeping the previous assignments")
	}
	if len(co.batch.Samples) >= co.batchSamples || time.Since(co.lastFlush) >= co.flushEvery {
		return co.flush(ctx)
	}
	return nil
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
	co.batch.Assignments = append(append(co.batch.Assignments, opened...), closed...)
	for _, j := range m.Jobs {
		if co.jobsSent[j.ID] == j.State {
			continue
		}
		co.jobsSent[j.ID] = j.State
		co.batch.Jobs = append(co.batch.Jobs, j)
		if end, ok := m.Ends[j.ID]; ok {
			if co.batch.JobEnds == nil {
				co.batch.JobEnds = map[int64]time.Time{}
			}
			co.batch.JobEnds[j.ID] = end
		}
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

// flush writes the batch (or spools it) and refreshes rollups when due.
func (co *collector) flush(ctx context.Context) error {
	co.lastFlush = time.Now()
	if len(co.batch.Samples) == 0 && len(co.batch.Assignments) == 0 && len(co.batch.Jobs) == 0 {
		return nil
	}
	co.batch.Cluster = co.cluster
	for _, smp := range co.batch.Samples { // hours whose report rollups are due
		if co.reportFrom.IsZero() || smp.Time.Before(co.reportFrom) {
			co.reportFrom = smp.Time
		}
	}
	res, err := co.in.Write(ctx, co.batch)
	co.metrics.batch(len(co.batch.Samples), res, err, time.Now())
	co.metrics.spool(co.spool.Stats())
	co.stats.replayed += res.Replayed
	if err != nil {
		co.log.Error().Err(err).Int("samples", len(co.batch.Samples)).Msg("batch lost")
	}
	co.stats.batches++
	if res.Spooled {
		co.stats.spooled++
		co.log.Warn().Int("samples", len(co.batch.Samples)).Msg("database unavailable; batch spooled")
	}
	co.batch = db.Batch{Samples: co.batch.Samples[:0]} // Write keeps no reference: reuse the buffer
	if !res.Spooled && time.Since(co.lastRollup) >= co.rollupEvery {
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
	n, err := co.in.Flush(ctx)
	co.stats.replayed += n
	co.metrics.replayed(n, time.Now())
	co.metrics.spool(co.spool.Stats())
	if err == nil {
		co.lastRollup = time.Time{}
		co.rollup(ctx)
	}
	co.log.Info().Int("sweeps", co.stats.sweeps).Int("samples", co.stats.samples).Int("batches", co.stats.batches).
		Int("spooled", co.stats.spooled).Int("replayed", co.stats.replayed).Msg("collect finished")
	if err != nil {
		co.log.Warn().Err(err).Msg("spooled batches remain; they are written on the next start")
	}
	return nil
}
