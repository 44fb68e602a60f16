package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/history"
)

// learner keeps the history of completed jobs in a duration estimator
// (planner/history: Helios' rule — the same user's jobs with similar names
// and the same GPU count, then the user's mean, then everyone's — and the
// job's limit × its user's usual share, whichever has timed this site's
// jobs best). The jobs
// come from one source (history.go): slurmdbd through slurmrestd, or the
// collector's job records in Postgres. It reads the history of the last
// learnWindow once, then what completed since, every learnEvery; a failed
// read is tried again the next cycle.
type learner struct {
	est       *history.Estimator
	since     time.Time // newest end time read
	lastRead  time.Time
	key       string // cluster and source the estimator was built from
	firstRead bool
	best      history.Match // the way that answered at the last log
}

const (
	learnWindow = 90 * 24 * time.Hour
	learnEvery  = 5 * time.Minute
	learnBatch  = 50000
)

// learn reads what completed since the last read (at most every learnEvery).
// Failures are logged: the planner then keeps the predictions it has.
func (l *learner) learn(ctx context.Context, src historySource, cluster string, now time.Time, log zerolog.Logger) error {
	if key := cluster + "\x00" + src.name(); l.est == nil || l.key != key {
		*l = learner{est: history.New(), since: now.Add(-learnWindow), key: key}
	}
	if l.firstRead && now.Sub(l.lastRead) < learnEvery {
		return nil
	}
	for {
		jobs, err := src.finished(ctx, cluster, l.since, now, learnBatch)
		if err != nil {
			log.Warn().Err(err).Str("history_source", src.name()).
				Msg("job history unavailable: durations of unhinted jobs keep their last predictions; tried again next cycle")
			return err
		}
		for _, j := range jobs {
			l.est.Add(j.Record)
			l.since = j.End
		}
		if len(jobs) < learnBatch {
			break
		}
	}
	if !l.firstRead {
		log.Info().Int("jobs", l.est.Len()).Str("history_source", src.name()).
			Msg("job history read: unhinted jobs are timed from similar completed jobs")
	}
	l.logWays(log)
	l.firstRead, l.lastRead = true, now
	return nil
}

// logWays says, when it changes, which way of timing unhinted jobs has the
// smallest error on this site's completed jobs, with every way's error.
func (l *learner) logWays(log zerolog.Logger) {
	ways := l.est.Ways()
	if len(ways) == 0 || ways[0].Match == l.best {
		return
	}
	l.best = ways[0].Match
	var b strings.Builder
	for i, w := range ways {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.2f (%d jobs)", w.Match, w.MeanErr, w.Jobs)
	}
	log.Info().Str("best", string(ways[0].Match)).Str("ways", b.String()).
		Msg("job history: each way of timing unhinted jobs scored on the completed jobs (mean |log2 predicted/real|); once each has 20 the best answers")
}

// predictor answers from the history once it has any; until then (and with
// no source) the planner falls back to the job's time limit.
func (l *learner) predictor() planner.Predictor { return learnerPredictor{l} }

// learnerPredictor is the learner's estimator as planner.Predictor and
// planner.PredictionBasis (the decision says which way timed the job).
type learnerPredictor struct{ l *learner }

func (p learnerPredictor) Predict(j *planner.Job, gpus int) (time.Duration, bool) {
	if p.l.est == nil || p.l.est.Len() == 0 {
		return 0, false
	}
	return p.l.est.Predictor().Predict(j, gpus)
}

func (p learnerPredictor) Basis(j *planner.Job) string {
	if p.l.est == nil {
		return ""
	}
	return p.l.est.Predictor().(planner.PredictionBasis).Basis(j)
}
