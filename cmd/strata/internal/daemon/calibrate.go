package daemon

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/calib"
)

// calibrator keeps the finished jobs of the last calibWindow (the
// collector's records joined with the planner's decisions: db
// CalibrationJobs) and the calibration fitted from them (planner/calib),
// which every cycle's snapshot carries. It re-reads what ended since its
// newest job less calibOverlap (the busy-power rollups of a job that just
// ended may come a little later) every calibEvery. A failed read is
// logged and the last calibration kept.
type calibrator struct {
	jobs     map[calibKey]db.CalibrationJob
	since    time.Time // newest end time read
	lastRead time.Time
	cluster  string
	read     bool
	cal      *planner.Calibration
	// exclude are the users whose jobs give no speed factor (their own
	// record is unreliable: trust.Unreliable), set before refresh.
	exclude map[string]bool
}

type calibKey struct {
	id  int64
	end time.Time
}

// calibSource is the part of Store the calibrator reads.
type calibSource interface {
	CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.CalibrationJob, error)
}

const (
	calibWindow  = 30 * 24 * time.Hour
	calibEvery   = 5 * time.Minute
	calibOverlap = time.Hour
	calibBatch   = 50000
)

// refresh reads what finished since the last read (at most every
// calibEvery) and refits.
func (c *calibrator) refresh(ctx context.Context, st calibSource, cluster string, now time.Time, log zerolog.Logger) {
	if c.jobs == nil || c.cluster != cluster {
		*c = calibrator{jobs: map[calibKey]db.CalibrationJob{}, since: now.Add(-calibWindow), cluster: cluster, exclude: c.exclude}
	}
	if c.read && now.Sub(c.lastRead) < calibEvery {
		return
	}
	from := c.since.Add(-calibOverlap)
	for {
		jobs, err := st.CalibrationJobs(ctx, cluster, from, calibBatch)
		if err != nil {
			log.Warn().Err(err).Msg("calibration data unavailable: the planner keeps its last speed factors and GPU power")
			return
		}
		for _, j := range jobs {
			c.jobs[calibKey{j.JobID, j.End}] = j
			from, c.since = j.End, j.End
		}
		if len(jobs) < calibBatch {
			break
		}
	}
	cut := now.Add(-calibWindow)
	in := make([]calib.Job, 0, len(c.jobs))
	for k, j := range c.jobs {
		if j.End.Before(cut) {
			delete(c.jobs, k)
			continue
		}
		in = append(in, calib.Job{End: j.End, Model: j.Model, GPUType: j.GPUType, User: j.User,
			Modelled: time.Duration(j.ModelSeconds * float64(time.Second)), Real: time.Duration(j.RealSeconds * float64(time.Second)),
			BusyEnergyJ: j.BusyEnergyJ, BusyGPUSeconds: j.BusyGPUSeconds, Censored: j.TimedOut})
	}
	c.cal = decide.Calibrate(in, c.exclude)
	if !c.read {
		ev := log.Info().Int("jobs", len(in))
		if c.cal != nil {
			ev = ev.Int("speed_factors", len(c.cal.Speed)).Int("gpu_types_powered", len(c.cal.Power))
		}
		ev.Msg("calibration read: modelled run times and GPU power corrected by what finished jobs measured")
	}
	c.read, c.lastRead = true, now
}

// addModelFacts stores with each recorded decision what the time model
// said about its job (planner.ModelFacts: model, GPU type, uncalibrated
// modelled run time at the decided size), the other half of calibration.
func (d *Daemon) addModelFacts(snap *planner.Snapshot, rec *db.Cycle) {
	if len(rec.Decisions) == 0 {
		return
	}
	p := planner.Plan{Decisions: make([]planner.Decision, len(rec.Decisions))}
	for i := range rec.Decisions {
		p.Decisions[i] = rec.Decisions[i].Decision
	}
	facts, err := planner.ModelFacts(snap, p, d.opts.plannerOptions())
	if err != nil {
		d.log.Debug().Err(err).Msg("no model facts for the audit trail")
		return
	}
	for i := range rec.Decisions {
		cd := &rec.Decisions[i]
		if f, ok := facts[cd.JobID]; ok {
			cd.HasFacts, cd.Model, cd.GPUType, cd.ModelRun = true, f.Model, f.GPUType, f.Run
		}
	}
}
