package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Choosing the way of predicting. Every way that can answer a job is a
// candidate (Helios' name match, the user's mean, everyone's mean, the
// job's limit × its user's share); each finished job scores the candidates
// that could have answered it, before the estimator learns from it, by the
// error |log2(estimate / run)|. Once every candidate for a job has been
// scored on MinScored jobs, the one with the smallest mean error answers;
// before that, Helios' order does (name, user, everyone), so that a site
// with few jobs predicts as Helios did.

// logMean is a geometric mean: a sum of logs.
type logMean struct {
	sum float64
	n   int
}

func (m *logMean) add(x float64) { m.sum += math.Log(x); m.n++ }

func (m *logMean) value() float64 { return math.Exp(m.sum / float64(m.n)) }

// logMeanOf is the entry k of ms, created empty.
func logMeanOf(ms map[string]*logMean, k string) *logMean {
	m := ms[k]
	if m == nil {
		m = &logMean{}
		ms[k] = m
	}
	return m
}

// errMean is a way's mean error |log2(estimate / run)| so far.
type errMean struct {
	sum float64
	n   int
}

func (m *errMean) value() float64 { return m.sum / float64(m.n) }

// scored is the way m's error when it has been scored on MinScored jobs.
func (e *Estimator) scored(m Match) (float64, bool) {
	sc := e.scores[m]
	if sc == nil || sc.n < max(1, e.MinScored) {
		return 0, false
	}
	return sc.value(), true
}

// candidate is one way's estimate.
type candidate struct {
	m Match
	d time.Duration
}

// candidates are the estimates every way can give a job (in Helios'
// order). lookup: find similar names even if not yet cached (a pending
// job's Estimate). Add searches them for its first 5 × MinScored jobs
// whose names are not cached, and after that scores the name match only
// when its names are known without a search (the job was estimated while
// it waited, or its exact name ran before), so that learning a long
// history at start stays about linear.
func (e *Estimator) candidates(user, name string, gpus int, limit time.Duration, lookup bool) []candidate {
	var out []candidate
	var names []string
	_, cached := e.similar[name]
	if !lookup && !cached && e.byName[name] == nil && e.scoreLookups < 5*max(1, e.MinScored) {
		lookup = true
		e.scoreLookups++
	}
	if lookup || cached || e.byName[name] != nil {
		names = e.similarNames(name)
	}
	if len(names) > 0 {
		out = append(out, candidate{MatchName, e.byNames(user, names, gpus)})
	}
	if u := e.users[user]; u != nil && u.n > 0 {
		out = append(out, candidate{MatchUser, u.value()})
	}
	if e.all.n > 0 {
		out = append(out, candidate{MatchGlobal, e.all.value()})
	}
	if limit > 0 {
		sh := e.shares[user]
		if sh == nil || sh.n < 3 {
			sh = e.shares[""]
		}
		if sh != nil && sh.n > 0 {
			out = append(out, candidate{MatchLimit, time.Duration(sh.value() * float64(limit))})
		}
	}
	return out
}

// choose picks among cs: the smallest mean error once each has been
// scored on MinScored jobs, else the first in Helios' order (the limit's
// estimate only when nothing else answers).
func (e *Estimator) choose(cs []candidate) (time.Duration, Match) {
	if i, _ := e.choice(cs); i >= 0 {
		return cs[i].d, cs[i].m
	}
	return 0, MatchNone
}

// choice is the index of choose's pick in cs (-1: none) and whether the
// scores chose it (false: Helios' order).
func (e *Estimator) choice(cs []candidate) (int, bool) {
	if len(cs) == 0 {
		return -1, false
	}
	best, bestErr := -1, math.Inf(1)
	for i, c := range cs {
		v, ok := e.scored(c.m)
		if !ok {
			return 0, false // Helios' order: candidates are built in it
		}
		if v < bestErr {
			best, bestErr = i, v
		}
	}
	return best, true
}

// score adds r's error to each way that could have predicted it (before r
// is learnt).
func (e *Estimator) score(r Record) {
	for _, c := range e.candidates(r.User, r.Name, r.GPUs, r.Limit, false) {
		if c.d > 0 {
			sc := e.scores[c.m]
			if sc == nil {
				sc = &errMean{}
				e.scores[c.m] = sc
			}
			sc.sum += math.Abs(math.Log2(c.d.Seconds() / r.Duration.Seconds()))
			sc.n++
		}
	}
}

// Way is one way of predicting and how it has done on this site's jobs so
// far: the mean |log2(estimate / run)| over the finished jobs it could
// have timed (1 is off by 2× on average).
type Way struct {
	Match   Match   `json:"way"`
	Jobs    int     `json:"jobs"`
	MeanErr float64 `json:"mean_abs_log2_error"`
}

// Ways returns every way scored so far, the smallest error first (ties by
// name): what `strata run` logs and the simulator reports, so that a site
// sees which way times its unhinted jobs and why.
func (e *Estimator) Ways() []Way {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Way, 0, len(e.scores))
	for m, s := range e.scores {
		out = append(out, Way{Match: m, Jobs: s.n, MeanErr: s.value()})
	}
	slices.SortFunc(out, func(a, b Way) int {
		return cmp.Or(cmp.Compare(a.MeanErr, b.MeanErr), cmp.Compare(a.Match, b.Match))
	})
	return out
}

// wayNames say each way in a decision's detail.
var wayNames = map[Match]string{
	MatchName:   "similar job names",
	MatchUser:   "the user's mean run",
	MatchGlobal: "everyone's mean run",
	MatchLimit:  "its time limit × the share of their limits the user's jobs ran",
}

// Basis says which way times a job of user on gpus GPUs named name with
// time limit limit, and why: the smallest error on this site's finished
// jobs, or Helios' order while the ways have too few scores.
func (e *Estimator) Basis(user, name string, gpus int, limit time.Duration) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := e.candidates(user, name, gpus, limit, true)
	i, byScore := e.choice(cs)
	if i < 0 {
		return ""
	}
	m := cs[i].m
	if !byScore || len(cs) < 2 {
		return "timed from history by " + wayNames[m] + " (Helios' order: the ways have too few finished jobs to compare)"
	}
	var next Match
	nextErr := math.Inf(1)
	for _, c := range cs {
		if v, ok := e.scored(c.m); ok && c.m != m && v < nextErr {
			next, nextErr = c.m, v
		}
	}
	err, _ := e.scored(m)
	return fmt.Sprintf("timed from history by %s: off by %.2g× on average over this site's %d finished jobs, against %.2g× for %s",
		wayNames[m], math.Exp2(err), e.scores[m].n, math.Exp2(nextErr), wayNames[next])
}
