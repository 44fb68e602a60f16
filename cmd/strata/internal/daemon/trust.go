package daemon

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// trustKeeper keeps each user's record of predicted against real run
// times (planner/trust): the finished jobs of the last trustWindow (the
// collector's job records joined with the planner's decisions: db
// TrustOutcomes), at most trustPerUser of each user's latest, and the
// corrections fitted from them, which every cycle's decide.History
// carries. It re-reads what ended since its newest job every trustEvery;
// a failed read is logged and the last record kept (so is it while
// Postgres is down).
type trustKeeper struct {
	outs     map[calibKey]trust.Outcome // by job ID and end (a reused ID is another job)
	since    time.Time                  // newest end time read
	lastRead time.Time
	cluster  string
	read     bool
	// recs are the users' records, claims their corrections by user, and
	// unreliable the users the shared calibration leaves out.
	recs       []trust.Record
	claims     map[string]planner.Claim
	unreliable map[string]bool
}

// trustSource is the part of Store the record reads.
type trustSource interface {
	TrustOutcomes(ctx context.Context, cluster string, since time.Time, limit int) ([]trust.Outcome, error)
	TrustRunning(ctx context.Context, cluster string, jobs []planner.Job, now time.Time) ([]trust.Outcome, error)
}

const (
	trustWindow  = 90 * 24 * time.Hour
	trustEvery   = 5 * time.Minute
	trustBatch   = 50000
	trustPerUser = 50 // the record uses the last trust.DefaultRecent; the rest counts jobs
)

// refresh reads what finished since the last read (at most every
// trustEvery) and the running jobs among jobs (the snapshot's) that have
// already run trust.MaxFactor × their prediction (trust.Overran: a lie is
// caught while it runs), and refits every user's record.
func (k *trustKeeper) refresh(ctx context.Context, st trustSource, cluster string, jobs []planner.Job, now time.Time, log zerolog.Logger) {
	if k.outs == nil || k.cluster != cluster {
		*k = trustKeeper{outs: map[calibKey]trust.Outcome{}, since: now.Add(-trustWindow), cluster: cluster}
	}
	if k.read && now.Sub(k.lastRead) < trustEvery {
		return
	}
	for {
		outs, err := st.TrustOutcomes(ctx, cluster, k.since, trustBatch)
		if err != nil {
			log.Warn().Err(err).Msg("users' records unavailable: predictions keep their last corrections")
			return
		}
		for _, o := range outs {
			k.outs[calibKey{o.JobID, o.End}] = o
			k.since = o.End
		}
		if len(outs) < trustBatch {
			break
		}
	}
	k.prune(now.Add(-trustWindow))
	in := make([]trust.Outcome, 0, len(k.outs))
	for _, key := range slices.SortedFunc(maps.Keys(k.outs), func(a, b calibKey) int {
		return cmp.Or(a.end.Compare(b.end), cmp.Compare(a.id, b.id))
	}) {
		in = append(in, k.outs[key])
	}
	over := k.overran(ctx, st, cluster, jobs, now, log)
	k.recs, k.claims, k.unreliable = decide.Records(append(in, over...))
	if !k.read || len(k.claims) > 0 {
		ev := log.Info()
		if k.read {
			ev = log.Debug()
		}
		ev.Int("jobs", len(in)).Int("running_overran", len(over)).Int("users", len(k.recs)).Int("corrected", len(k.claims)).
			Int("left_out_of_calibration", len(k.unreliable)).
			Msg("users' records read: each user's predictions are corrected by how their own jobs ran")
	}
	k.read, k.lastRead = true, now
}

// overran reads the running jobs' predictions and keeps those that have
// already run trust.MaxFactor × their prediction. A failed read is logged
// and counts none: the ended runs still make the record.
func (k *trustKeeper) overran(ctx context.Context, st trustSource, cluster string, jobs []planner.Job, now time.Time, log zerolog.Logger) []trust.Outcome {
	outs, err := st.TrustRunning(ctx, cluster, jobs, now)
	if err != nil {
		log.Warn().Err(err).Msg("running jobs' predictions unavailable: the users' records count ended runs only this time")
		return nil
	}
	return slices.DeleteFunc(outs, func(o trust.Outcome) bool { return !trust.Overran(o) })
}

// prune forgets jobs that ended before cut and keeps at most trustPerUser
// of each user's latest.
func (k *trustKeeper) prune(cut time.Time) {
	by := map[string][]trust.Outcome{}
	for key, o := range k.outs {
		if o.End.Before(cut) {
			delete(k.outs, key)
			continue
		}
		by[o.User] = append(by[o.User], o)
	}
	for _, os := range by {
		if len(os) <= trustPerUser {
			continue
		}
		slices.SortFunc(os, func(a, b trust.Outcome) int {
			return cmp.Or(b.End.Compare(a.End), cmp.Compare(b.JobID, a.JobID))
		})
		for _, o := range os[trustPerUser:] {
			delete(k.outs, calibKey{o.JobID, o.End})
		}
	}
}
