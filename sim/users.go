package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Users and honesty (strata simulate --users, --dishonest): the public
// traces the evaluation uses have no user column, and a user's record
// (planner/trust) needs users.

// AssignUsers gives every job of tr without a user one of n users by the
// documented rule: the k-th job in submission order (k from 0) belongs to
// user (k mod n) + 1, named "u" and that number zero-padded to the width
// of n ("u01" … "u20" for n = 20). Every user thus gets every n-th job,
// spread over the whole trace. Jobs that have a user keep it; n ≤ 0 leaves
// the trace as it is. The trace is copied, never changed in place.
func AssignUsers(tr *Trace, n int) *Trace {
	if n <= 0 {
		return tr
	}
	out := *tr
	out.Jobs = slices.Clone(tr.Jobs)
	width := len(strconv.Itoa(n))
	for k := range out.Jobs {
		if out.Jobs[k].User == "" {
			out.Jobs[k].User = fmt.Sprintf("u%0*d", width, k%n+1)
		}
	}
	return &out
}

// Honesty says which users lie (strata simulate --dishonest
// FRACTION:FACTOR): Fraction of the trace's users, drawn with Seed,
// understate the work in every hint Factor-fold (their hints' iterations
// or samples are divided by Factor). Factor 1 marks the same users
// without their lying: the all-honest run the dishonest one is compared
// with, job for job.
//
// Tactic is how they lie: TacticPlain (understate, nothing else),
// TacticPreempt (also write preempt=yes without letting Slurm requeue the
// job: it can never be preempted, and once bought an exemption from claim
// binding) or TacticTiny (two honest 2-minute jobs before each lie, to
// keep a record made of job counts clean). The tiny jobs are added with
// Factor 1 too, so that the all-honest run has the same jobs.
type Honesty struct {
	Fraction, Factor float64
	Seed             uint64
	Tactic           string
}

// The liars' tactics (Honesty.Tactic).
const (
	TacticPlain   = "plain"
	TacticPreempt = "preempt"
	TacticTiny    = "tiny"
)

// ParseHonesty reads FRACTION:FACTOR[:TACTIC] (e.g. 0.1:100 or
// 0.1:3:tiny): a fraction in [0, 1], a factor ≥ 1 and a tactic (plain,
// preempt, tiny; default plain).
func ParseHonesty(s string) (Honesty, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Honesty{}, fmt.Errorf("%q: want FRACTION:FACTOR[:TACTIC], e.g. 0.1:100 or 0.1:3:tiny", s)
	}
	b, tactic, _ := strings.Cut(b, ":")
	switch tactic = strings.TrimSpace(tactic); tactic {
	case "":
		tactic = TacticPlain
	case TacticPlain, TacticPreempt, TacticTiny:
	default:
		return Honesty{}, fmt.Errorf("%q: unknown tactic %q (want %s, %s or %s)", s, tactic, TacticPlain, TacticPreempt, TacticTiny)
	}
	f, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	x, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err := errors.Join(err1, err2); err != nil {
		return Honesty{}, fmt.Errorf("%q: want FRACTION:FACTOR: %w", s, err)
	}
	if !(f >= 0 && f <= 1) || !(x >= 1) || math.IsInf(x, 1) {
		return Honesty{}, fmt.Errorf("%q: want a fraction in [0, 1] and a factor ≥ 1", s)
	}
	return Honesty{Fraction: f, Factor: x, Tactic: tactic}, nil
}

// Liars lists the dishonest users of tr (sorted): round(Fraction × the
// number of distinct users), at least one when Fraction > 0, drawn from
// the sorted users by a shuffle seeded with Seed.
func (h Honesty) Liars(tr *Trace) []string {
	var users []string
	for _, j := range tr.Jobs {
		users = append(users, j.User)
	}
	slices.Sort(users)
	users = slices.Compact(users)
	n := int(math.Round(h.Fraction * float64(len(users))))
	if h.Fraction > 0 {
		n = max(1, n)
	}
	n = min(n, len(users))
	rng := rand.New(rand.NewPCG(h.Seed, 0x6c696172)) // "liar"
	rng.Shuffle(len(users), func(a, b int) { users[a], users[b] = users[b], users[a] })
	liars := slices.Clone(users[:n])
	slices.Sort(liars)
	return liars
}

// MakeDishonest marks the jobs of h's dishonest users (TraceJob.Dishonest)
// and divides the work their hints claim by h.Factor (ClaimScale), with
// h.Tactic. It returns a copy of tr and the dishonest users.
func MakeDishonest(tr *Trace, h Honesty) (*Trace, []string) {
	liars := h.Liars(tr)
	out := *tr
	out.Jobs = make([]TraceJob, 0, len(tr.Jobs))
	for _, j := range tr.Jobs {
		if _, ok := slices.BinarySearch(liars, j.User); !ok {
			out.Jobs = append(out.Jobs, j)
			continue
		}
		if h.Tactic == TacticTiny && j.Duration > 0 && j.Iterations > 0 {
			out.Jobs = append(out.Jobs, tinyJobs(j)...)
		}
		j.Dishonest = true
		if h.Factor > 1 {
			j.ClaimScale = claimScale(&j) / h.Factor
		}
		j.ClaimPreempt = h.Tactic == TacticPreempt
		out.Jobs = append(out.Jobs, j)
	}
	// the engine admits jobs in submit order
	slices.SortStableFunc(out.Jobs, func(a, b TraceJob) int { return cmp.Compare(a.Submit, b.Submit) })
	return &out, liars
}

// tinyJobs are the two honest 2-minute jobs a liar of TacticTiny submits
// before the lie j (a minute apart, ending before it is submitted where
// the cluster lets them): the same model and size, honest hints, marked
// Filler (in neither side of the honesty statistics).
func tinyJobs(j TraceJob) []TraceJob {
	const run = 120.0
	out := make([]TraceJob, 2)
	for k := range out {
		t := j
		t.ID = fmt.Sprintf("%s-tiny%d", j.ID, k+1)
		t.Submit = max(0, j.Submit-float64(240-60*k))
		t.Iterations = max(1, int64(math.Round(float64(j.Iterations)*run/j.Duration)))
		t.Duration, t.Filler, t.Published = run, true, nil
		out[k] = t
	}
	return out
}

// claimScale is a job's ClaimScale with 0 read as 1.
func claimScale(j *TraceJob) float64 {
	if j.ClaimScale > 0 {
		return j.ClaimScale
	}
	return 1
}
