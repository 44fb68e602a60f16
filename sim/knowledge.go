package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// What policies know about jobs (strata simulate --knowledge): the oracle
// (every hint states the true work, every job has one where the truth can
// time it, time limits are 2 × the run time) or realistic knowledge, drawn
// per job with a seed from published measurements (docs/evaluation.md §
// "Realistic knowledge" gives the sources of each magnitude).
const (
	KnowledgeOracle    = "oracle"
	KnowledgeRealistic = "realistic"
)

// Knowledge is the realistic model of what users write.
type Knowledge struct {
	// HintSigma is the spread of a hint's error: the work a hint claims is
	// the true work × exp(HintSigma · z), z standard normal per job (the
	// time model is then off by that factor). 0.15 gives a mean absolute
	// error of 12 %, Habitat's measured 11.8 % for predicting a training
	// iteration's time (Yu et al., USENIX ATC 2021).
	HintSigma float64
	// NoHintShare of the jobs that could carry a hint carry none; they are
	// timed by the run's predictor (history) and keep their size.
	NoHintShare float64
	// Time limits as users ask for them, after Tsafrir, Etsion and
	// Feitelson ("Modeling User Runtime Estimates", JSSPP 2005; "Using
	// inaccurate estimates accurately", JSSPP 2010): modal, a few round
	// values, the site's maximum always popular. MaxShare of the jobs ask
	// for MaxLimit; the others for the smallest of LimitValues at or above
	// their run time × an over-ask drawn log-uniformly in [1, OverAsk].
	// Every limit is at least the job's run time at its request (a job
	// killed by its own user's limit is another matter than the ones
	// measured here).
	MaxShare    float64
	MaxLimit    time.Duration
	OverAsk     float64
	LimitValues []time.Duration
	Seed        uint64
}

// RealisticKnowledge is the model with the magnitudes docs/evaluation.md
// justifies, drawn with seed.
func RealisticKnowledge(seed uint64) Knowledge {
	h := time.Hour
	return Knowledge{HintSigma: 0.15, NoHintShare: 0.25, MaxShare: 0.2, MaxLimit: 24 * h, OverAsk: 4,
		LimitValues: []time.Duration{15 * time.Minute, 30 * time.Minute, h, 2 * h, 4 * h, 8 * h, 12 * h, 24 * h, 48 * h, 72 * h},
		Seed:        seed}
}

// Apply returns a copy of tr with each job's claim error (ClaimScale,
// multiplied into any lie already there), hint share (NoHint) and time
// limit drawn. Every job takes the same number of draws, so a job's draws
// do not depend on the jobs before it being hinted. Jobs that carry a
// time limit in the trace keep it.
func (k Knowledge) Apply(tr *Trace) *Trace {
	rng := rand.New(rand.NewPCG(k.Seed, 0x6b6e6f77)) // "know"
	out := *tr
	out.Jobs = slices.Clone(tr.Jobs)
	for i := range out.Jobs {
		j := &out.Jobs[i]
		z, noHint, maxed, over := rng.NormFloat64(), rng.Float64(), rng.Float64(), rng.Float64()
		j.ClaimScale = claimScale(j) * math.Exp(k.HintSigma*z)
		j.NoHint = j.NoHint || noHint < k.NoHintShare
		if j.TimeLimit <= 0 {
			j.TimeLimit = k.limit(j.Duration, maxed < k.MaxShare, math.Pow(max(1, k.OverAsk), over))
		}
	}
	return &out
}

// limit is the time limit (s) a user asks for a job of run time run: the
// maximum when maxed, else the smallest popular value at or above
// run × over; never below the run time (rounded up to whole minutes).
func (k Knowledge) limit(run float64, maxed bool, over float64) float64 {
	floor := math.Max(60, math.Ceil(run/60)*60)
	if maxed && k.MaxLimit.Seconds() >= run {
		return k.MaxLimit.Seconds()
	}
	want := run * over
	for _, v := range k.LimitValues {
		if v.Seconds() >= want {
			return math.Max(v.Seconds(), floor)
		}
	}
	return math.Max(math.Ceil(want/3600)*3600, floor)
}

// Validate names the first setting out of range.
func (k Knowledge) Validate() error {
	if k.HintSigma < 0 || k.NoHintShare < 0 || k.NoHintShare > 1 || k.MaxShare < 0 || k.MaxShare > 1 || k.OverAsk < 1 {
		return fmt.Errorf("knowledge: hint sigma %g, no-hint share %g, max share %g, over-ask %g out of range",
			k.HintSigma, k.NoHintShare, k.MaxShare, k.OverAsk)
	}
	return nil
}
