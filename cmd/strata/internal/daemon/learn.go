package daemon

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/history"
)

// learner keeps the history of completed jobs (from the collector's job
// records in Postgres) in a duration estimator: Helios' rule — the same
// user's jobs with similar names and the same GPU count, then the user's
// mean, then everyone's (planner/history). It reads the history of the last
// learnWindow once, then what completed since, every learnEvery.
type learner struct {
	est       *history.Estimator
	since     time.Time // newest end time read
	lastRead  time.Time
	cluster   string
	firstRead bool
}

const (
	learnWindow = 90 * 24 * time.Hour
	learnEvery  = 5 * time.Minute
	learnBatch  = 50000
)

// learn reads what completed since the last read (at most every learnEvery).
// Failures are logged: the planner then keeps the predictions it has.
func (l *learner) learn(ctx context.Context, st Store, cluster string, now time.Time, log zerolog.Logger) {
	if l.est == nil || l.cluster != cluster {
		*l = learner{est: history.New(), since: now.Add(-learnWindow), cluster: cluster}
	}
	if l.firstRead && now.Sub(l.lastRead) < learnEvery {
		return
	}
	for {
		jobs, err := st.FinishedJobs(ctx, cluster, l.since, learnBatch)
		if err != nil {
			log.Warn().Err(err).Msg("job history unavailable: durations of unhinted jobs keep their last predictions")
			return
		}
		for _, j := range jobs {
			l.est.Add(history.Record{User: j.User, Name: j.Name, Partition: j.Partition, GPUs: j.GPUs, Duration: j.End.Sub(j.Start)})
			l.since = j.End
		}
		if len(jobs) < learnBatch {
			break
		}
	}
	if !l.firstRead {
		log.Info().Int("jobs", l.est.Len()).Msg("job history read: unhinted jobs are timed from similar completed jobs")
	}
	l.firstRead, l.lastRead = true, now
}

// predictor answers from the history once it has any; until then (and with
// no database) the planner falls back to the job's time limit.
func (l *learner) predictor() planner.Predictor {
	return planner.PredictorFunc(func(j *planner.Job, gpus int) (time.Duration, bool) {
		if l.est == nil || l.est.Len() == 0 {
			return 0, false
		}
		return l.est.Predictor().Predict(j, gpus)
	})
}
