package slurm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// asUser builds a client as user against the recorded stand-in, which
// answers as slurmrestd with slurmdbd does for an operator or a plain user.
func asUser(t *testing.T, user string, plain bool) (*slurmtest.Server, *slurm.Client) {
	t.Helper()
	srv := slurmtest.NewServer(t, "testdata")
	if plain {
		srv.AsPlainUser()
	} else {
		srv.AsOperator()
	}
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: user, Token: "t",
		RetryBackoff: time.Millisecond}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// An operator's first update is refused for its admin comment: it is sent
// again without it, and later updates leave it out from the start; a
// deferral, which needs the admin comment, is refused unsent.
func TestApplyAsOperatorWithoutAdminComment(t *testing.T) {
	srv, c := asUser(t, "strata", false)
	ds := []planner.Decision{
		{JobID: 5, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 100010},
		{JobID: 3, Action: planner.ActionUpdate, Workers: 1, Rank: 2, Priority: 100000},
	}
	rep, err := c.Apply(context.Background(), ds, slurm.ApplyOptions{Cycle: 3})
	if err != nil {
		t.Fatal(err)
	}
	type post struct {
		job          int64
		adminComment bool
	}
	var posts []post
	for _, w := range srv.Writes() {
		posts = append(posts, post{w.JobID, strings.Contains(w.Body, "admin_comment")})
	}
	if diff := cmp.Diff([]post{{5, true}, {5, false}, {3, false}}, posts, cmp.AllowUnexported(post{})); diff != "" {
		t.Errorf("POSTs (-want +got):\n%s", diff)
	}
	for _, r := range rep.Results {
		if r.Outcome != decide.Applied || strings.Contains(r.Body, "admin_comment") {
			t.Errorf("job %d: %s, body %s; want applied without the admin comment", r.JobID, r.Outcome, r.Body)
		}
	}

	n := len(srv.Writes())
	deferral := planner.Decision{JobID: 5, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 100010,
		NotBefore: time.Unix(1795320000, 0)}
	rep, err = c.Apply(context.Background(), []planner.Decision{deferral}, slurm.ApplyOptions{Cycle: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Outcome != decide.Failed || !errors.Is(r.Err, slurm.ErrPermission) ||
		!strings.Contains(r.Detail, "user strata may not write admin comments (only root and SlurmUser may), needed to defer a job") {
		t.Errorf("deferral as operator: %s %q (%v); want failed, naming the admin comment", r.Outcome, r.Detail, r.Err)
	}
	if got := len(srv.Writes()); got != n {
		t.Errorf("the refused deferral sent %d POSTs, want none", got-n)
	}
}

// A plain user's write is refused with the cause and the fix; a second
// attempt without the admin comment (refused too) changes nothing.
func TestApplyAsPlainUserNamesTheFix(t *testing.T) {
	srv, c := asUser(t, "alice", true)
	d := planner.Decision{JobID: 5, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 100010}
	rep, err := c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	want := "user alice may not set priorities: make Strata's Slurm user an operator: sacctmgr modify user alice set adminlevel=operator"
	if r.Outcome != decide.Failed || !errors.Is(r.Err, slurm.ErrPermission) || !strings.HasPrefix(r.Detail, want) {
		t.Errorf("plain user: %s %q; want failed, starting %q", r.Outcome, r.Detail, want)
	}
	if n := len(srv.Writes()); n != 2 {
		t.Errorf("%d POSTs, want 2 (with and without the admin comment)", n)
	}
}
