package history

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestSelectsTheWayThatPredictsThisSite: on a site whose job names carry no
// information ("pod-0001", ...: every name is similar to every other) but
// whose users ask for limits that follow their runs, the limit's share
// answers once each way has been scored on MinScored jobs; on a site whose
// names say the work (one run time per model), the name match keeps
// answering. Before the scores, Helios' order answers.
func TestSelectsTheWayThatPredictsThisSite(t *testing.T) {
	for _, tc := range []struct {
		name        string
		jobName     func(i int) string
		run         func(i int) time.Duration
		limit       func(run time.Duration) time.Duration
		warm, after Match
	}{
		{"generic names, limits follow runs",
			func(i int) string { return fmt.Sprintf("pod-%04d", i) },
			func(i int) time.Duration { return time.Duration(1+i%7*5) * time.Hour },
			func(run time.Duration) time.Duration { return 2 * run },
			MatchName, MatchLimit},
		{"names say the model, limits the site's maximum",
			func(i int) string { return fmt.Sprintf("model%d-train", i%5) },
			func(i int) time.Duration { return time.Duration(1+i%5*7) * time.Hour },
			func(time.Duration) time.Duration { return 72 * time.Hour },
			MatchName, MatchName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			next := func(i int) (string, time.Duration, time.Duration) {
				r := tc.run(i)
				return tc.jobName(i), r, tc.limit(r)
			}
			i := 0
			for ; i < 5; i++ {
				n, r, l := next(i)
				e.Estimate("u", n, 1, l) // asked while it waited: its names are known
				e.Add(Record{User: "u", Name: n, GPUs: 1, Duration: r, Limit: l})
			}
			n, _, l := next(i)
			if _, m := e.Estimate("u", n, 1, l); m != tc.warm {
				t.Fatalf("before the scores: answered by %s, want %s (Helios' order)", m, tc.warm)
			}
			if b := e.Basis("u", n, 1, l); !strings.Contains(b, "Helios' order") {
				t.Errorf("basis before the scores %q: want Helios' order said", b)
			}
			for ; i < 5+2*e.MinScored; i++ {
				n, r, l := next(i)
				e.Estimate("u", n, 1, l)
				e.Add(Record{User: "u", Name: n, GPUs: 1, Duration: r, Limit: l})
			}
			n, r, l := next(i)
			d, m := e.Estimate("u", n, 1, l)
			if m != tc.after {
				t.Fatalf("after %d jobs: answered by %s, want %s (scores %v)", i, m, tc.after, e.scoreSummary())
			}
			if err := math.Abs(math.Log2(d.Seconds() / r.Seconds())); err > 0.5 {
				t.Errorf("estimate %v for a run of %v: want within 2^0.5", d, r)
			}
			if ways := e.Ways(); len(ways) == 0 || ways[0].Match != tc.after {
				t.Errorf("ways %+v: want %s first", ways, tc.after)
			}
			if b := e.Basis("u", n, 1, l); !strings.Contains(b, wayNames[tc.after]) || !strings.Contains(b, "on average over this site's") {
				t.Errorf("basis %q: want it to name %q and its error", b, wayNames[tc.after])
			}
		})
	}
}

// scoreSummary is each way's mean error, for failure messages.
func (e *Estimator) scoreSummary() map[Match]float64 {
	out := map[Match]float64{}
	for m, s := range e.scores {
		out[m] = s.sum / float64(s.n)
	}
	return out
}

// TestLimitShare: the limit's estimate is the job's limit × the geometric
// mean share its user's jobs ran (everyone's while the user has fewer than
// three), and there is none without a limit.
func TestLimitShare(t *testing.T) {
	e := New()
	h := time.Hour
	for _, r := range []Record{
		{User: "a", Name: "x", Duration: h, Limit: 4 * h},     // 1/4
		{User: "a", Name: "y", Duration: h, Limit: h},         // 1
		{User: "a", Name: "z", Duration: 2 * h, Limit: 8 * h}, // 1/4
		{User: "b", Name: "w", Duration: h, Limit: 2 * h},     // 1/2
	} {
		e.Add(r)
	}
	share := func(user string, limit time.Duration) time.Duration {
		for _, c := range e.candidates(user, "q", 1, limit, true) {
			if c.m == MatchLimit {
				return c.d
			}
		}
		return 0
	}
	// a: (1/4 · 1 · 1/4)^(1/3) = 0.397; b has one job: everyone's (1/4 · 1 · 1/4 · 1/2)^(1/4) = 0.420
	for _, tc := range []struct {
		user  string
		limit time.Duration
		want  float64 // hours
	}{{"a", 10 * h, 3.969}, {"b", 10 * h, 4.204}, {"a", 0, 0}} {
		if got := share(tc.user, tc.limit).Hours(); math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%s with limit %v: %.3f h, want %.3f", tc.user, tc.limit, got, tc.want)
		}
	}
}
