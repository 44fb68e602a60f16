package slurm_test

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// TestApplySendsAgainWhileSlurmIsBusy: slurmctld answers a job update
// "Resource temporarily unavailable" (error 11) now and then, on the test
// cluster about one partition change in two. The daemon's write is sent
// again, backing off, and applied; it counted as a failed write before,
// and three such cycles in a row stopped Strata's writes to the job for
// good (TestExclusiveFlexibleJobStartsInTheCheaperPartition failed so).
// A controller busy for longer than the tries is a failed write.
func TestApplySendsAgainWhileSlurmIsBusy(t *testing.T) {
	for _, tt := range []struct {
		busy  int
		posts int
		want  decide.Outcome
	}{
		{busy: 2, posts: 3, want: decide.Applied},
		{busy: 10, posts: 6, want: decide.Failed},
	} {
		srv := slurmtest.NewServer(t, "testdata")
		c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t",
			RetryBackoff: time.Millisecond}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		srv.BusyNext(tt.busy)
		rep, err := c.Apply(context.Background(), []planner.Decision{
			{JobID: 5, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 100010}}, slurm.ApplyOptions{Cycle: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Results[0].Outcome; got != tt.want {
			t.Errorf("busy %d: outcome %s (%s), want %s", tt.busy, got, rep.Results[0].Detail, tt.want)
		}
		if got := len(srv.Writes()); got != tt.posts {
			t.Errorf("busy %d: %d POSTs, want %d", tt.busy, got, tt.posts)
		}
	}
}
