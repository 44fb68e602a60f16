package slurm

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// TestJobUpdateBindsClaim (issue 22.2): a decision's lower time limit is
// written in Slurm's minutes (time_limit in the job update body) with the
// user's own limit recorded in the admin comment, which keeps the first
// one when the limit is lowered again; a limit is never raised.
func TestJobUpdateBindsClaim(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	j := planner.Job{ID: 1, State: planner.JobPending, Priority: 10, GPUsPerNode: 1, Nodes: 1, TRESPerNode: "gres/gpu:1",
		TimeLimit: 48 * time.Hour}
	d := planner.Decision{JobID: 1, Workers: 1, Rank: 1, TimeLimit: 30*time.Minute + time.Second}
	u, changed := jobUpdateFor(j, d, 7, now)
	if !changed || u.TimeLimitMinutes != 31 {
		t.Fatalf("update %+v: want time limit 31 min", u)
	}
	w, _ := decide.ParseAdminComment(*u.AdminComment)
	if w.Limit != 48*time.Hour {
		t.Errorf("admin comment %q: want the user's limit 2880 min", *u.AdminComment)
	}
	body, err := (&v0042{}).updateBody(u)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		TimeLimit struct {
			Set    bool `json:"set"`
			Number int  `json:"number"`
		} `json:"time_limit"`
	}
	if err := json.Unmarshal(body, &m); err != nil || !m.TimeLimit.Set || m.TimeLimit.Number != 31 {
		t.Errorf("body %s: want time_limit 31 (%v)", body, err)
	}

	j.TimeLimit, j.AdminComment = 31*time.Minute, *u.AdminComment
	d.TimeLimit = 20 * time.Minute
	u, _ = jobUpdateFor(j, d, 8, now)
	if w, _ := decide.ParseAdminComment(*u.AdminComment); u.TimeLimitMinutes != 20 || w.Limit != 48*time.Hour {
		t.Errorf("lowered again: %+v (%q): want 20 min with the first limit kept", u, *u.AdminComment)
	}
	d.TimeLimit = time.Hour
	if u, _ = jobUpdateFor(j, d, 9, now); u.TimeLimitMinutes != 0 {
		t.Errorf("raised to %d min: a limit is never raised", u.TimeLimitMinutes)
	}
}
