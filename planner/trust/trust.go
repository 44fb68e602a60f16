// Package trust keeps each user's record of how their jobs' real run times
// compared with what Strata predicted for them, and turns it into the
// correction of that user's next predictions (planner.Claim). A user's
// record moves only that user's predictions: no user's jobs correct
// another's. Pure and deterministic: the daemon feeds it finished jobs from
// Postgres, the simulator the jobs finished so far in a run.
package trust

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Outcome is one finished job of a user: what Strata predicted for its run
// (from the hint or from history) and what it ran.
type Outcome struct {
	User, Account string
	JobID         int64
	// End orders a user's jobs: the most recent count.
	End time.Time
	// Predicted is Strata's prediction of the run time at the size the job
	// ran at, before any correction by this record; Real the measured run
	// time.
	Predicted, Real time.Duration
	// TimedOut: the job was stopped at its time limit, so Real is a lower
	// bound of the run it claimed (its claim was broken).
	TimedOut bool
	// GPUs it ran on (0 read as 1): a job weighs in the record by its
	// GPU-hours, so that small honest jobs cannot hide a large lie.
	GPUs int
	// NoClaim: the prediction did not come from the job's hint through
	// the time model (the job had no hint, or one the model could not
	// time: history or the time limit timed it). The record is of the
	// user's claims, so such a job does not count: a liar's unhinted jobs
	// ran as predicted and hid the lies (issue 30).
	NoClaim bool
	// Running: the job has not ended; Real is how long it has run so far
	// (a lower bound of its run, as for TimedOut) and End the moment it was
	// seen. Such a job counts only once it has run MaxFactor × its
	// prediction: then the user is distrusted at once, while the lie still
	// runs, instead of when it ends (issue 30: a new user's first large
	// lie). Below that a run so far says nothing of the claim.
	Running bool
}

// Claimed says whether a prediction timed by reason came from the job's
// hint through the time model: the one rule behind Outcome.NoClaim (the
// simulator reads the reason itself, the daemon's query and the report
// the stored one).
func Claimed(reason planner.Reason) bool { return reason == planner.ReasonModelled }

// weight is the job's GPU-hours (at least a GPU-minute).
func (o Outcome) weight() float64 {
	return float64(max(1, o.GPUs)) * max(o.Real.Hours(), 1.0/60)
}

// Ratio is Real / Predicted (0 when either is missing).
func (o Outcome) Ratio() float64 {
	if o.Predicted <= 0 || o.Real <= 0 {
		return 0
	}
	return o.Real.Seconds() / o.Predicted.Seconds()
}

// Config are the record's settings; zero fields take the defaults.
type Config struct {
	// Recent is how many of a user's most recent jobs count at least. An
	// older job still counts while the jobs after it weigh less than it
	// does (GPU-hours): a large job is forgotten only after as much work
	// ran since, so small jobs cannot wash a large lie out of the record
	// (issue 30, the "tiny" tactic). Default 10.
	Recent int
	// Keep is how many of a user's latest jobs the record looks at, at
	// most (the daemon keeps as many per user). Default 50.
	Keep int
	// Prior is the weight, in jobs, of a new user's neutral start (ratio
	// 1): the correction is the median log-ratio of the recent jobs shrunk
	// by n/(n+Prior). Default 1: one job that ran 100× its prediction
	// corrects the next by 10×; three such jobs by ~32×.
	Prior float64
	// MinFactor and MaxFactor bound the correction; a record at or above
	// MaxFactor (the user's claims are off by an order of magnitude or
	// more) distrusts the claims: the job is timed by its time limit.
	// Defaults 0.25 and 10.
	MinFactor, MaxFactor float64
	// Forgive is how many of the most recent jobs a broken claim (a job
	// stopped at its limit after running ≥ 1.5× its prediction), or one
	// job that ran MaxFactor × its prediction or more, keeps the user
	// distrusted for, and at least until the jobs after it weigh as much
	// as it did (GPU-hours). Default 3.
	Forgive int
}

// Defaults of Config.
const (
	DefaultRecent    = 10
	DefaultKeep      = 50
	DefaultPrior     = 1.0
	DefaultMinFactor = 0.25
	DefaultMaxFactor = 10.0
	DefaultForgive   = 3
	// brokenRatio: a timed-out job that ran at least this multiple of its
	// prediction broke its claim.
	brokenRatio = 1.5
	// understated: a correction from which the user's claims count as
	// understated beyond the model's error, and the correction is squared.
	understated = 1.5
)

func (c Config) withDefaults() Config {
	if c.Recent <= 0 {
		c.Recent = DefaultRecent
	}
	if c.Keep < c.Recent {
		c.Keep = max(DefaultKeep, c.Recent)
	}
	if c.Prior <= 0 {
		c.Prior = DefaultPrior
	}
	if c.MinFactor <= 0 {
		c.MinFactor = DefaultMinFactor
	}
	if c.MaxFactor <= 1 {
		c.MaxFactor = DefaultMaxFactor
	}
	if c.Forgive <= 0 {
		c.Forgive = DefaultForgive
	}
	return c
}

// Record is one user's record.
type Record struct {
	User string `json:"user"`
	// Jobs counts the user's finished jobs with a claimed prediction (all of
	// them); Recent those the correction is computed from.
	Jobs   int `json:"jobs"`
	Recent int `json:"recent"`
	// MedianRatio is the median real/predicted of the recent jobs;
	// TimedOut how many of them were stopped at their limit, Broken how
	// many of those broke their claim.
	MedianRatio float64 `json:"median_ratio"`
	TimedOut    int     `json:"timed_out"`
	Broken      int     `json:"broken"`
	// Claim is the correction it gives the user's next jobs.
	Claim planner.Claim `json:"claim"`
}

// Fit builds every user's record from outcomes (any order). Outcomes
// without a user, a ratio or a claim (NoClaim) are ignored, and so are
// running jobs that have not yet run MaxFactor × their prediction
// (Overran). Users are returned sorted.
func Fit(outcomes []Outcome, c Config) []Record {
	c = c.withDefaults()
	by := map[string][]Outcome{}
	for _, o := range outcomes {
		if o.User == "" || o.Ratio() == 0 || o.NoClaim || o.Running && !c.overran(o) {
			continue
		}
		by[o.User] = append(by[o.User], o)
	}
	users := make([]string, 0, len(by))
	for u := range by {
		users = append(users, u)
	}
	slices.Sort(users)
	out := make([]Record, 0, len(users))
	for _, u := range users {
		out = append(out, fitUser(u, by[u], c))
	}
	return out
}

// Overran says whether a running job o has already run MaxFactor × its
// prediction (at the default Config): the one running job that counts in
// its user's record. Callers use it to refit only when the set of such
// jobs changes.
func Overran(o Outcome) bool { return Config{}.withDefaults().overran(o) }

func (c Config) overran(o Outcome) bool {
	return o.User != "" && !o.NoClaim && o.Ratio() >= c.MaxFactor
}

// Claims returns the corrections by user (only users whose record
// corrects something), for decide.History.
func Claims(recs []Record) map[string]planner.Claim {
	m := map[string]planner.Claim{}
	for _, r := range recs {
		if r.Claim.Factor != 0 || r.Claim.Distrust {
			m[r.User] = r.Claim
		}
	}
	return m
}

func fitUser(user string, os []Outcome, c Config) Record {
	slices.SortFunc(os, func(a, b Outcome) int {
		return cmp.Or(a.End.Compare(b.End), cmp.Compare(a.JobID, b.JobID))
	})
	r := Record{User: user, Jobs: len(os)}
	recent, after := window(os, c)
	r.Recent = len(recent)
	logs := make([]float64, len(recent))
	weights := make([]float64, len(recent))
	huge, running := 0, 0 // recent jobs that ran MaxFactor × their prediction or more; of them still running
	for i, o := range recent {
		logs[i], weights[i] = math.Log(o.Ratio()), o.weight()
		// still unforgiven: fewer than Forgive jobs since, or less work
		inForgive := i >= len(recent)-c.Forgive || after[i] < weights[i]
		if o.TimedOut {
			r.TimedOut++
			if o.Ratio() >= brokenRatio && inForgive {
				r.Broken++
			}
		}
		if o.Ratio() >= c.MaxFactor && inForgive {
			huge++
			if o.Running {
				running++
			}
		}
	}
	med := weightedMedian(logs, weights)
	r.MedianRatio = math.Exp(med)
	n := float64(len(recent))
	f := math.Exp(med * n / (n + c.Prior))
	switch {
	case huge > 0 && r.Broken == 0:
		still := ""
		if running > 0 {
			still = fmt.Sprintf(" (%d still running)", running)
		}
		r.Claim = planner.Claim{Distrust: true, Jobs: r.Recent,
			Note: fmt.Sprintf("%d of your last %d jobs ran %g× or more their predictions%s: "+
				"claims are not trusted until %d jobs in a row, and as many GPU-hours as those jobs ran, run as claimed; timed by the time limit", huge, r.Recent, c.MaxFactor, still, c.Forgive)}
	case r.Broken > 0:
		r.Claim = planner.Claim{Distrust: true, Jobs: r.Recent,
			Note: fmt.Sprintf("%d of your last %d jobs ran past their claimed work and were stopped at their time limit: "+
				"claims are not trusted until %d jobs in a row, and as many GPU-hours as those jobs ran, finish within them; timed by the time limit", r.Broken, r.Recent, c.Forgive)}
	case f >= c.MaxFactor:
		r.Claim = planner.Claim{Distrust: true, Jobs: r.Recent,
			Note: fmt.Sprintf("your last %d jobs ran a median %.3g× their predictions by GPU-hours: claims are not trusted; timed by the time limit",
				r.Recent, r.MedianRatio)}
	case math.Abs(math.Log(f)) < math.Log(1.1):
		// within 10 %: no correction
	case f >= understated:
		// Understatement beyond the model's own error costs its claimant
		// more than it could gain: the correction is squared (issue 30).
		f = min(f*f, c.MaxFactor)
		r.Claim = planner.Claim{Factor: f, Jobs: r.Recent,
			Note: fmt.Sprintf("prediction ×%.2f: your last %d jobs ran a median %.3g× their predictions by GPU-hours (understated claims are corrected twice over)", f, r.Recent, r.MedianRatio)}
	default:
		f = max(f, c.MinFactor)
		r.Claim = planner.Claim{Factor: f, Jobs: r.Recent,
			Note: fmt.Sprintf("prediction ×%.2f: your last %d jobs ran a median %.3g× their predictions by GPU-hours", f, r.Recent, r.MedianRatio)}
	}
	return r
}

// window selects the jobs of os (sorted oldest first) the record counts,
// in the same order: the last Recent, and any older one among the last
// Keep that the jobs after it do not outweigh. after[i] is the GPU-hours
// of all the user's jobs (counted or not) that ended after recent[i].
func window(os []Outcome, c Config) (recent []Outcome, after []float64) {
	var newer float64
	for k, i := 0, len(os)-1; i >= 0 && k < c.Keep; k, i = k+1, i-1 {
		w := os[i].weight()
		if k < c.Recent || w > newer {
			recent, after = append(recent, os[i]), append(after, newer)
		}
		newer += w
	}
	slices.Reverse(recent)
	slices.Reverse(after)
	return recent, after
}

// weightedMedian is the weighted median of xs (the lower one on a tie of
// halves is averaged with the next, as median does for equal weights).
func weightedMedian(xs, ws []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	idx := make([]int, len(xs))
	var total float64
	for i := range idx {
		idx[i] = i
		total += ws[i]
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	var acc float64
	for k, i := range idx {
		acc += ws[i]
		switch {
		case acc > total/2:
			return xs[i]
		case acc == total/2 && k+1 < len(idx):
			return (xs[i] + xs[idx[k+1]]) / 2
		}
	}
	return xs[idx[len(idx)-1]]
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
