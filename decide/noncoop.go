package decide

import (
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// NonCooperative is the rule that marks a running job that ignored its
// checkpoint signal (docs/preemption.md): one Strata signalled (sig= in
// its admin comment), still running the run it signalled (started before
// the signal) requeueTimeout after it, and not marked yet. It returns the
// decisions that mark them, in job order; the writer records the mark in
// the job's admin comment (noncoop=1), and the planner never proposes a
// preemption of a marked job again. Pure: the daemon and the simulator
// both call it (through Decide).
func NonCooperative(s *planner.Snapshot, requeueTimeout time.Duration) []planner.Decision {
	if requeueTimeout <= 0 {
		requeueTimeout = DefaultRequeueTimeout
	}
	var out []planner.Decision
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.State != planner.JobRunning || j.NonCooperative || !strings.Contains(j.AdminComment, "sig=") {
			continue // no signal in the comment: nothing to parse (most jobs, every cycle)
		}
		w, ok := ParseAdminComment(j.AdminComment)
		if !ok || w.Signalled.IsZero() || j.StartTime.After(w.Signalled) || s.Now.Sub(w.Signalled) < requeueTimeout {
			continue
		}
		out = append(out, planner.Decision{JobID: j.ID, Action: planner.ActionMarkNonCooperative,
			Reasons: []planner.Reason{planner.ReasonNonCooperative},
			Detail:  "signalled " + w.Signalled.UTC().Format(time.RFC3339) + ", still running that run"})
	}
	return out
}
