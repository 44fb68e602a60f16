package trust_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// jobs makes n outcomes of user u with the given real/predicted ratio.
func jobs(u string, ratios ...float64) []trust.Outcome {
	var out []trust.Outcome
	for i, r := range ratios {
		out = append(out, trust.Outcome{User: u, JobID: int64(i + 1), End: t0.Add(time.Duration(i) * time.Hour),
			Predicted: time.Hour, Real: time.Duration(r * float64(time.Hour))})
	}
	return out
}

func TestFit(t *testing.T) {
	type got struct {
		Factor   float64
		Distrust bool
	}
	round := func(c planner.Claim) got { return got{float64(int(c.Factor*100+0.5)) / 100, c.Distrust} }
	for _, tc := range []struct {
		name string
		in   []trust.Outcome
		want got
	}{
		{"a new user starts neutral", nil, got{}},
		{"accurate jobs: no correction", jobs("a", 1, 1.05, 0.95, 1), got{}},
		{"an old outlier among small honest jobs moves nothing", jobs("a", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5), got{}},
		{"a recent 50x run among honest ones distrusts", jobs("a", 1, 1, 1, 50, 1, 1), got{0, true}},
		{"a first job's 99x lie distrusts at once", jobs("a", 99), got{0, true}},
		// Understatement (a correction of 1.5x or more) is corrected twice
		// over: lying 3x costs more than it gains (issue 30).
		{"one job 4x over: corrected by 2x, squared", jobs("a", 4), got{4, false}},
		{"a pattern of 3x: caught quickly, overcorrected", jobs("a", 3, 3, 3), got{5.2, false}},
		{"within the model's error: corrected as measured", jobs("a", 1.3, 1.4, 1.3), got{1.22, false}},
		{"pessimist: corrected down, not below the floor", jobs("a", 0.5, 0.5, 0.5, 0.5), got{0.57, false}},
		{"one job 100x over: distrusted", jobs("a", 100), got{0, true}},
		{"liar's pattern: distrusted", jobs("a", 100, 100, 100), got{0, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claims := trust.Claims(trust.Fit(tc.in, trust.Config{}))
			if d := cmp.Diff(tc.want, round(claims["a"])); d != "" {
				t.Errorf("claim (-want +got):\n%s", d)
			}
		})
	}
}

// TestFitWeighsGPUHours (issue 30): two honest 2-minute jobs before each
// 3× lie of an hour's claim (the "tiny" tactic) no longer hide the lies:
// the record weighs each job by its GPU-hours. Counted by jobs, the
// median was the honest 1.
func TestFitWeighsGPUHours(t *testing.T) {
	var in []trust.Outcome
	for k := range 3 {
		for i, o := range []trust.Outcome{
			{Predicted: 2 * time.Minute, Real: 2 * time.Minute, GPUs: 1},
			{Predicted: 2 * time.Minute, Real: 2 * time.Minute, GPUs: 1},
			{Predicted: time.Hour, Real: 3 * time.Hour, GPUs: 4},
		} {
			o.User, o.JobID, o.End = "a", int64(3*k+i+1), t0.Add(time.Duration(3*k+i)*time.Hour)
			in = append(in, o)
		}
	}
	recs := trust.Fit(in, trust.Config{})
	if len(recs) != 1 || recs[0].MedianRatio < 2.9 {
		t.Fatalf("records %+v: want the lies' ratio 3 as the median", recs)
	}
	if c := trust.Claims(recs)["a"]; c.Factor < 2.5 {
		t.Errorf("claim %+v: want a correction near 3", c)
	}
}

// TestFitPerUser: one user's lies never correct another user's jobs.
func TestFitPerUser(t *testing.T) {
	in := append(jobs("liar", 1000, 1000, 1000, 1000, 1000, 1000), jobs("honest", 1, 1, 1, 1, 1)...)
	claims := trust.Claims(trust.Fit(in, trust.Config{}))
	if _, ok := claims["honest"]; ok {
		t.Errorf("honest user corrected: %+v", claims["honest"])
	}
	if !claims["liar"].Distrust {
		t.Errorf("liar not distrusted: %+v", claims["liar"])
	}
}

// TestFitBrokenClaim: a job stopped at its limit after running past its
// claim keeps the user distrusted for the next few jobs, even when the
// ratio it shows is small (the limit cut it short).
func TestFitBrokenClaim(t *testing.T) {
	in := jobs("a", 1, 1, 1, 2)
	in[3].TimedOut = true
	if c := trust.Claims(trust.Fit(in, trust.Config{}))["a"]; !c.Distrust {
		t.Fatalf("claim %+v: want distrust after a broken claim", c)
	}
	in = append(in, jobs("a", 1, 1, 1, 1, 1)...)
	for i := range in[4:] {
		in[4+i].End = t0.Add(time.Duration(10+i) * time.Hour)
		in[4+i].JobID = int64(10 + i)
	}
	if c := trust.Claims(trust.Fit(in, trust.Config{}))["a"]; c.Distrust {
		t.Errorf("claim %+v: want trust again after 5 honest jobs", c)
	}
}

// TestFitRemembersLargeJobs (issue 30): a large job stays in its user's
// record until as much work (GPU-hours) ran after it. Counted by jobs,
// twelve 2-minute honest jobs after a 16-GPU lie pushed it out of the
// last ten, and the next lie was trusted again.
func TestFitRemembersLargeJobs(t *testing.T) {
	large := func(ratio float64, gpus int) trust.Outcome {
		return trust.Outcome{Predicted: 20 * time.Minute, Real: time.Duration(ratio * float64(20*time.Minute)), GPUs: gpus}
	}
	tiny := trust.Outcome{Predicted: 2 * time.Minute, Real: 2 * time.Minute, GPUs: 1}
	honest := func(gpus int) trust.Outcome { // two hours as claimed
		return trust.Outcome{Predicted: 2 * time.Hour, Real: 2 * time.Hour, GPUs: gpus}
	}
	seq := func(first trust.Outcome, after ...trust.Outcome) []trust.Outcome {
		in := append([]trust.Outcome{first}, after...)
		for i := range in {
			in[i].User, in[i].JobID, in[i].End = "a", int64(i+1), t0.Add(time.Duration(i)*time.Hour)
		}
		return in
	}
	twelve := func(o trust.Outcome) []trust.Outcome {
		out := make([]trust.Outcome, 12)
		for i := range out {
			out[i] = o
		}
		return out
	}
	type got struct {
		Corrected, Distrust bool
	}
	for _, tc := range []struct {
		name string
		in   []trust.Outcome
		want got
	}{
		{"a 3x lie on 16 GPUs, then twelve tiny honest jobs: still corrected",
			seq(large(3, 16), twelve(tiny)...), got{Corrected: true}},
		{"a 50x lie on 16 GPUs, then twelve tiny honest jobs: still distrusted",
			seq(large(50, 16), twelve(tiny)...), got{Distrust: true}},
		{"an honest 16-GPU job, then twelve tiny honest jobs: nothing to correct",
			seq(large(1, 16), twelve(tiny)...), got{}},
		{"a 50x lie on 16 GPUs (17 h), then twelve 2-hour honest jobs on 16: forgiven",
			seq(large(50, 16), twelve(honest(16))...), got{}},
		{"a 50x lie on 16 GPUs, then twelve 2-hour honest jobs on 1: not yet",
			seq(large(50, 16), twelve(honest(1))...), got{Distrust: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := trust.Claims(trust.Fit(tc.in, trust.Config{}))["a"]
			if d := cmp.Diff(tc.want, got{Corrected: c.Factor > 1, Distrust: c.Distrust}); d != "" {
				t.Errorf("claim %+v (-want +got):\n%s", c, d)
			}
		})
	}
}

// TestFitLeavesUnclaimedOut (issue 30): the record is of claims. A job
// its hint did not time (no hint: history or the time limit timed it)
// says nothing about the user's claims; counted, a liar's unhinted jobs
// that ran shorter than history said outweighed the lies, and the lies
// were corrected down.
func TestFitLeavesUnclaimedOut(t *testing.T) {
	var in []trust.Outcome
	for k := range 3 {
		for i, o := range []trust.Outcome{
			{Predicted: time.Hour, Real: 3 * time.Hour, GPUs: 4},                    // a 3x lie
			{Predicted: 4 * time.Hour, Real: 2 * time.Hour, GPUs: 8, NoClaim: true}, // unhinted
		} {
			o.User, o.JobID, o.End = "a", int64(2*k+i+1), t0.Add(time.Duration(2*k+i)*time.Hour)
			in = append(in, o)
		}
	}
	recs := trust.Fit(in, trust.Config{})
	if len(recs) != 1 || recs[0].Jobs != 3 || recs[0].MedianRatio < 2.9 {
		t.Fatalf("records %+v: want the 3 lies only, median 3", recs)
	}
	if c := trust.Claims(recs)["a"]; c.Factor < 3 {
		t.Errorf("claim %+v: want the lies corrected (squared: above 3)", c)
	}
}

// TestFitCountsRunningOverruns (issue 30: a new user's first large lie): a
// job still running counts in its user's record once it has run MaxFactor
// × its claim — the user is distrusted while the lie runs, not when it
// ends — and not before (a run so far below that says nothing).
func TestFitCountsRunningOverruns(t *testing.T) {
	running := func(ranFor time.Duration) trust.Outcome {
		return trust.Outcome{User: "a", JobID: 9, End: t0, Predicted: 6 * time.Minute, Real: ranFor, GPUs: 8, Running: true}
	}
	honest := jobs("a", 1, 1.1, 0.9)
	for _, tc := range []struct {
		name string
		in   []trust.Outcome
		want bool // distrusted
	}{
		{"a first job at 9x its claim so far: nothing yet", []trust.Outcome{running(54 * time.Minute)}, false},
		{"a first job at 10x its claim so far: distrusted at once", []trust.Outcome{running(time.Hour)}, true},
		{"after honest jobs too", append(slices.Clone(honest), running(2*time.Hour)), true},
		{"a running job below 10x leaves the honest record alone", append(slices.Clone(honest), running(30*time.Minute)), false},
		{"a running job that claimed nothing does not count", []trust.Outcome{func() trust.Outcome {
			o := running(5 * time.Hour)
			o.NoClaim = true
			return o
		}()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := trust.Fit(tc.in, trust.Config{})
			c := trust.Claims(recs)["a"]
			if c.Distrust != tc.want {
				t.Fatalf("claim %+v: want distrust %v", c, tc.want)
			}
			if tc.want && !strings.Contains(c.Note, "still running") {
				t.Errorf("note %q: want it to say the job still runs", c.Note)
			}
			for _, o := range tc.in {
				if o.Running && trust.Overran(o) != (o.Ratio() >= trust.DefaultMaxFactor && !o.NoClaim) {
					t.Errorf("Overran(%v) disagrees with the record", o.Real)
				}
			}
		})
	}
}
