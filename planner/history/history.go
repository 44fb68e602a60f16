// Package history predicts how long a job runs from the jobs that ran
// before it, with the naive estimator of Helios' QSSF (Hu et al., SC'21,
// "Characterization and Prediction of Deep Learning Workloads in
// Large-Scale GPU Datacenters"; artifact S-Lab-System-Group/HeliosArtifact):
// jobs with a similar name (difflib ratio ≥ 0.6, at most two names), the
// same user first, the same GPU count when there are such jobs; else the
// user's mean; else the mean of everyone. It learns online: Add each job as
// it finishes. It is pure and deterministic, like the planner.
//
// Names say something only where users name jobs after their work (Helios'
// do; "openb-pod-0016" does not), so the estimator also keeps a prediction
// from the job's own time limit (the user's usual share of a limit, after
// Tsafrir, Etsion and Feitelson, "Backfilling using system-generated
// predictions rather than user runtime estimates", IEEE TPDS 2007) and
// scores every way of predicting on each job as it finishes, before
// learning from it. Once each way that can answer a job has been scored on
// MinScored jobs, the one with the smallest error on this site answers
// (select.go); before that, Helios' order does.
package history

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Record is one finished job.
type Record struct {
	User      string
	Name      string
	Partition string
	GPUs      int
	// Duration is the job's run time (end − start).
	Duration time.Duration
	// Limit is the time limit the job ran under (0: unknown or none).
	Limit time.Duration
}

// Match names what a prediction was based on (for explain and reports).
type Match string

// Matches, from the most to the least specific.
const (
	MatchName   Match = "name"      // similar names (the user's own when there are)
	MatchUser   Match = "user_mean" // the user's mean duration
	MatchGlobal Match = "global"    // the mean of every job seen
	// MatchLimit: the job's time limit × the share of their limits the
	// user's jobs ran (everyone's while the user has few), geometric mean.
	MatchLimit Match = "limit_share"
	MatchNone  Match = "" // no history at all
)

// Estimator is the history and the predictor over it. It is safe for
// concurrent use (the daemon plans islands concurrently, and a lookup
// fills the similar-name cache).
type Estimator struct {
	mu sync.Mutex

	// MinSimilarity is the name similarity a match needs; default 0.6.
	MinSimilarity float64
	// MaxNames is how many similar names are used; default 2.
	MaxNames int
	// MinScored is how many finished jobs each way of predicting must have
	// been scored on before the best scored one answers; default 20.
	MinScored int

	byName map[string][]Record // by exact name
	names  []string            // distinct names, sorted
	users  map[string]*mean
	all    mean
	// shares are the log shares of their time limits the jobs ran, by user
	// ("" everyone's); scores each way's error on the jobs so far.
	shares map[string]*logMean
	scores map[Match]*errMean
	// scoreLookups counts the similar-name searches Add made to score the
	// name match (candidates).
	scoreLookups int
	// similar caches the similar names found for a name, with their
	// similarity; Add updates it with each new name (no recomputation).
	similar map[string][]cand
}

// cand is a similar name and its similarity.
type cand struct {
	name string
	r    float64
}

// better orders candidates: the more similar first, ties by name.
func (a cand) better(b cand) bool { return a.r > b.r || a.r == b.r && a.name < b.name }

type mean struct {
	sum time.Duration
	n   int
}

func (m *mean) add(d time.Duration) { m.sum += d; m.n++ }
func (m mean) value() time.Duration {
	if m.n == 0 {
		return 0
	}
	return m.sum / time.Duration(m.n)
}

// New returns an empty estimator with Helios' parameters.
func New() *Estimator {
	return &Estimator{MinSimilarity: 0.6, MaxNames: 2, MinScored: 20, byName: map[string][]Record{},
		users: map[string]*mean{}, similar: map[string][]cand{}, shares: map[string]*logMean{}, scores: map[Match]*errMean{}}
}

// Add records a finished job. Jobs without a positive duration are
// ignored (cancelled before they ran).
func (e *Estimator) Add(r Record) {
	if r.Duration <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.score(r)
	if _, ok := e.byName[r.Name]; !ok {
		i, _ := slices.BinarySearch(e.names, r.Name)
		e.names = slices.Insert(e.names, i, r.Name)
		for k, cs := range e.similar { // the new name may join a cached list
			if v, ok := atLeast(k, r.Name, e.MinSimilarity); ok {
				e.similar[k] = insertCand(cs, cand{r.Name, v}, e.MaxNames)
			}
		}
	}
	e.byName[r.Name] = append(e.byName[r.Name], r)
	u := e.users[r.User]
	if u == nil {
		u = &mean{}
		e.users[r.User] = u
	}
	u.add(r.Duration)
	e.all.add(r.Duration)
	if r.Limit > 0 {
		share := min(1, r.Duration.Seconds()/r.Limit.Seconds())
		for _, k := range []string{r.User, ""} {
			logMeanOf(e.shares, k).add(share)
		}
	}
}

// Len is the number of records.
func (e *Estimator) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.all.n
}

// Estimate predicts the run time of a job of user on gpus GPUs named name
// with time limit limit (0: none), and says what it is based on (MatchNone
// and 0 without history).
func (e *Estimator) Estimate(user, name string, gpus int, limit time.Duration) (time.Duration, Match) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.choose(e.candidates(user, name, gpus, limit, true))
}

// byNames is the Helios estimate from the jobs with the names names.
func (e *Estimator) byNames(user string, names []string, gpus int) time.Duration {
	var sel []Record
	for _, n := range names {
		for _, r := range e.byName[n] {
			if r.User == user {
				sel = append(sel, r)
			}
		}
	}
	if len(sel) == 0 { // the user has none: everyone's jobs of those names
		for _, n := range names {
			sel = append(sel, e.byName[n]...)
		}
	}
	if same := sameGPUs(sel, gpus); len(same) > 0 {
		sel = same
	}
	var m mean
	for _, r := range sel {
		m.add(r.Duration)
	}
	return m.value()
}

// similarNames is Helios' name match: the exact name if it was seen, else
// up to MaxNames names whose similarity is at least MinSimilarity, the most
// similar first (ties by name).
func (e *Estimator) similarNames(name string) []string {
	if name == "" {
		return nil
	}
	if _, ok := e.byName[name]; ok {
		return []string{name}
	}
	cs, ok := e.similar[name]
	if !ok {
		for _, n := range e.names {
			if r, ok := atLeast(name, n, e.MinSimilarity); ok {
				cs = insertCand(cs, cand{n, r}, e.MaxNames)
			}
		}
		e.similar[name] = cs
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// insertCand puts c into cs (kept best first, at most max long).
func insertCand(cs []cand, c cand, max int) []cand {
	i := 0
	for i < len(cs) && cs[i].better(c) {
		i++
	}
	if i >= max {
		return cs
	}
	cs = slices.Insert(cs, i, c)
	if len(cs) > max {
		cs = cs[:max]
	}
	return cs
}

func sameGPUs(rs []Record, gpus int) []Record {
	var out []Record
	for _, r := range rs {
		if r.GPUs == gpus {
			out = append(out, r)
		}
	}
	return out
}

// Predictor adapts the estimator to planner.Predictor: the history's
// estimate for the job's user, name and GPU count (the count asked about;
// history does not know how a job scales, so other counts get the same
// duration scaled by requested/gpus, as the simulator's linear truth does).
// Jobs of users with no history at all get no prediction (the planner then
// uses the time limit).
func (e *Estimator) Predictor() planner.Predictor { return predictor{e} }

// predictor is the estimator as planner.Predictor and
// planner.PredictionBasis.
type predictor struct{ e *Estimator }

func (p predictor) Predict(j *planner.Job, gpus int) (time.Duration, bool) {
	req := j.GPUs()
	d, m := p.e.Estimate(j.User, strings.TrimSpace(j.Name), req, j.TimeLimit)
	if m == MatchNone || d <= 0 {
		return 0, false
	}
	if gpus > 0 && req > 0 && gpus != req {
		d = time.Duration(float64(d) * float64(req) / float64(gpus))
	}
	return d, true
}

// Basis says which way timed j and why (the decision's detail).
func (p predictor) Basis(j *planner.Job) string {
	return p.e.Basis(j.User, strings.TrimSpace(j.Name), j.GPUs(), j.TimeLimit)
}
