package hint

import (
	"fmt"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// bindTrigger is planner/bind.go's: a limit is lowered only when it is at
// least this multiple of the bound limit.
const bindTrigger = 1.5

// LimitInfo is the time limit the job would get from Strata, and why
// (issue 30.4: users are told before).
type LimitInfo struct {
	// Kept: Strata leaves the job's limit as the user set it (its --time,
	// or the partition's default).
	Kept bool `json:"kept"`
	// LimitS is the limit the job keeps (0: the partition's default, or
	// not known for a comment checked alone).
	LimitS int64 `json:"limit_s,omitempty"`
	// BoundS is the limit Strata would lower it to if the user's record
	// shows understatement (bind-claims on), at the least correction such
	// a record carries; 0 when it would never be lowered.
	BoundS int64 `json:"bound_s,omitempty"`
	// Why says so in words; Text is the whole line hint check prints.
	Why  string `json:"why"`
	Text string `json:"text"`
}

// limitInfo states what Strata would do to the job's time limit under the
// site's planner options o, for a job whose hint parses (ok) with modelled
// runs runs and script s (nil: a comment checked alone).
func limitInfo(h planner.Hints, ok bool, s *Script, runs []Run, o planner.Options) LimitInfo {
	var have time.Duration
	if s != nil {
		have = s.TimeLimit
	}
	li := LimitInfo{Kept: true, LimitS: int64(have / time.Second)}
	own := "the job's own (--time)"
	switch {
	case s != nil && have > 0:
		own = fmtDuration(have)
	case s != nil:
		own = "the partition's default"
	}
	slowest := 0.0
	for _, r := range runs {
		slowest = max(slowest, r.Seconds)
	}
	switch {
	case !o.BindClaims:
		li.Why = "Strata changes no time limit at this site"
	case !ok:
		li.Why = "no strata: hint: a job's limit is lowered only for a claim its hint makes"
	case h.NoRewrite:
		li.Why = "rewrite=no: Strata does not change this job"
	case slowest <= 0:
		li.Why = "the hint does not time the job (no modelled run): nothing to bind"
	default:
		// A claim binds only a user whose record corrects their claims
		// by at least planner.BindRecordFactor: the bound is at least
		// that correction × the slowest modelled run × the margin.
		pred := time.Duration(planner.BindRecordFactor * slowest * float64(time.Second))
		bound := planner.BoundLimit(pred, o.ClaimMargin, o.ClaimFloor)
		if have > 0 && float64(have) < bindTrigger*float64(bound) {
			li.Why = fmt.Sprintf("--time=%s is within %g× the limit a bound claim would get (%s)", fmtDuration(have), bindTrigger,
				fmtDuration(bound))
			break
		}
		li.BoundS = int64(bound / time.Second)
		li.Why = fmt.Sprintf("unless your record shows understatement (your jobs ran at least %g× what their hints claimed): "+
			"then Strata lowers it to at least %s (%g× the prediction corrected by your record; here %s at the slowest size), "+
			"and Slurm ends the job there (strata report predictions --by user shows the record)", planner.BindRecordFactor, fmtDuration(bound), margin(o), fmtDuration(seconds(slowest)))
	}
	li.Text = fmt.Sprintf("time limit: %s kept: %s", own, li.Why)
	return li
}

func margin(o planner.Options) float64 {
	if o.ClaimMargin > 0 {
		return o.ClaimMargin
	}
	return planner.DefaultClaimMargin
}
