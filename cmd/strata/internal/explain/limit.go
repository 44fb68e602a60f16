package explain

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// LimitSource is what explain reads, besides Source, to tell a lowered time
// limit that still holds; *db.Store implements it.
type LimitSource interface {
	LoweredLimit(ctx context.Context, id int64, cluster string) (db.LoweredLimit, error)
}

// Limit is a time limit Strata lowered that still holds: from what the
// user asked to what Strata wrote, in Slurm's time format.
type Limit struct {
	From  string `json:"from,omitempty"` // "" when not known
	To    string `json:"to"`
	FromS int64  `json:"from_s,omitempty"`
	ToS   int64  `json:"to_s"`
	Cycle int64  `json:"cycle,omitempty"`
	// Source is where it was read: "slurm" (the job's limit and its admin
	// comment's limit=) or "audit trail".
	Source string `json:"source"`
}

func limitOf(from, to time.Duration, cycle int64, source string) *Limit {
	l := &Limit{To: decide.SlurmTime(to), ToS: int64(to / time.Second), Cycle: cycle, Source: source}
	if from > 0 {
		l.From, l.FromS = decide.SlurmTime(from), int64(from/time.Second)
	}
	return l
}

// slurmLimit reads a lowered limit off job j: its admin comment's limit=
// above its limit now. ok false when j says nothing of one.
func slurmLimit(j planner.Job) *Limit {
	w, ok := decide.ParseAdminComment(j.AdminComment)
	if !ok || w.Limit <= 0 || j.TimeLimit <= 0 || j.TimeLimit >= w.Limit {
		return nil
	}
	return limitOf(w.Limit, j.TimeLimit, w.Cycle, "slurm")
}

// loweredFrom finds "lowered from X" in a decision's detail (the planner's
// words when a claim binds).
var loweredFrom = regexp.MustCompile(`lowered from ([0-9:-]+)`)

// loweredLimit is the lowered limit of job id that still holds: from
// Slurm when o.Slurm reads the job (its record is the truth), else from the
// audit trail (src, when it keeps one), else from the decisions read (ds).
func loweredLimit(ctx context.Context, src Source, o Options, id int64, ds []db.StoredDecision) (*Limit, error) {
	if o.Slurm != nil {
		if j, err := o.Slurm.Job(ctx, id); err == nil {
			return slurmLimit(j), nil
		}
	}
	var ll db.LoweredLimit
	if ls, ok := src.(LimitSource); ok {
		var err error
		if ll, err = ls.LoweredLimit(ctx, id, o.Cluster); errors.Is(err, db.ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	} else {
		for _, d := range ds {
			if d.Outcome == decide.Applied && d.TimeLimit > 0 && d.Policy != db.RestorePolicy {
				ll = db.LoweredLimit{Cycle: d.CycleID, Limit: d.TimeLimit, Detail: d.Detail}
				break
			}
			if d.Policy == db.RestorePolicy && d.Outcome == decide.Applied {
				break
			}
		}
		if ll.Limit <= 0 {
			return nil, nil
		}
	}
	var from time.Duration
	if m := loweredFrom.FindStringSubmatch(ll.Detail); m != nil {
		from, _ = decide.ParseSlurmTime(m[1])
	}
	return limitOf(from, ll.Limit, ll.Cycle, "audit trail"), nil
}
