package jobenv

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func TestWrite(t *testing.T) {
	env := map[string]string{"SLURM_GPUS_ON_NODE": "2", "SLURM_JOB_NUM_NODES": "3"}
	tests := []struct {
		name    string
		comment string
		want    string
	}{
		{"decided", "strata: workers=4 ps=1 rank=2 cycle=17 Comment=x",
			"export STRATA_JOB_ID=9\nexport STRATA_DECIDED=1\nexport STRATA_WORKERS=4\nexport STRATA_PS=1\nexport STRATA_RANK=2\nexport STRATA_CYCLE=17\n# source: scontrol\n"},
		{"no decision: own allocation", "(null) Comment=x",
			"export STRATA_JOB_ID=9\nexport STRATA_DECIDED=0\nexport STRATA_WORKERS=6\nexport STRATA_PS=0\nexport STRATA_RANK=0\nexport STRATA_CYCLE=0\n# source: scontrol\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := decide.ParseAdminComment(tt.comment)
			var buf bytes.Buffer
			if err := Write(&buf, 9, a, ok, "scontrol", func(k string) string { return env[k] }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("exports (-want +got):\n%s", diff)
			}
		})
	}
}

// memDecisions is a Decisions over stored rows (newest first).
type memDecisions []db.StoredDecision

func (m memDecisions) DecisionsForJob(context.Context, int64, string, int) ([]db.StoredDecision, error) {
	return m, nil
}

func TestFind(t *testing.T) {
	written := "strata: workers=4 ps=1 rank=2 cycle=17"
	stored := memDecisions{
		{CycleID: 20, CycleDecision: db.CycleDecision{Decision: planner.Decision{Workers: 8}, Outcome: decide.Held}},
		{CycleID: 19, CycleDecision: db.CycleDecision{Decision: planner.Decision{Workers: 2, Rank: 3}, Outcome: decide.Applied}},
	}
	scontrol := func(comment string, err error) func(context.Context, int64) (string, error) {
		return func(context.Context, int64) (string, error) { return comment, err }
	}
	open := func(d Decisions, err error) func() (Decisions, func(), error) {
		return func() (Decisions, func(), error) { return d, func() {}, err }
	}
	type found struct {
		A      decide.Written
		OK     bool
		Source string
	}
	tests := []struct {
		name string
		l    Lookup
		want found
	}{
		{"flag wins over scontrol", Lookup{AdminComment: &written, Scontrol: scontrol("", errors.New("must not be asked"))},
			found{decide.Written{Workers: 4, PS: 1, Rank: 2, Cycle: 17}, true, "flag"}},
		{"scontrol", Lookup{Scontrol: scontrol(written+" Comment=x", nil)},
			found{decide.Written{Workers: 4, PS: 1, Rank: 2, Cycle: 17}, true, "scontrol"}},
		{"no scontrol, no database", Lookup{Scontrol: scontrol("", errors.New("no scontrol"))}, found{Source: "none"}},
		{"database: the latest applied decision", Lookup{Scontrol: scontrol("(null)", nil), Open: open(stored, nil)},
			found{decide.Written{Workers: 2, Rank: 3, Cycle: 19}, true, "database"}},
		{"database down", Lookup{Scontrol: scontrol("(null)", nil), Open: open(nil, errors.New("down"))}, found{Source: "scontrol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.l.Log = zerolog.Nop()
			a, ok, source := tt.l.Find(context.Background(), 9)
			if diff := cmp.Diff(tt.want, found{a, ok, source}); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}
