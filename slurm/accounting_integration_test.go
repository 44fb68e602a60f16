package slurm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// These tests need a test cluster with accounting (slurmdbd):
// slurmtest.ConnectAccounting, the companion cluster make test starts.

func accounting(t *testing.T) *slurmtest.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster with accounting")
	}
	return slurmtest.ConnectAccounting(t)
}

// clientAs connects to cl with a token of user.
func clientAs(t *testing.T, cl *slurmtest.Cluster, user string) *slurm.Client {
	t.Helper()
	cfg := cl.Config
	cfg.User, cfg.Token = user, cl.Token(t, user)
	c, err := slurm.New(context.Background(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatalf("New as %s: %v", user, err)
	}
	return c
}

func TestIntegrationAccountingServed(t *testing.T) {
	acct := accounting(t)
	plain := slurmtest.Connect(t)
	for _, tc := range []struct {
		name string
		cl   *slurmtest.Cluster
		want bool
	}{{"with slurmdbd", acct, true}, {"without", plain, plain.Config.URL == acct.Config.URL}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := slurm.New(context.Background(), tc.cl.Config, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if got := c.ServesAccounting(); got != tc.want {
				t.Errorf("ServesAccounting() = %v, want %v", got, tc.want)
			}
			if tc.want {
				return
			}
			_, err = c.FinishedJobs(context.Background(), "", time.Now().Add(-time.Hour), time.Now())
			if !errors.Is(err, slurm.ErrNotFound) {
				t.Errorf("FinishedJobs without slurmdbd: %v, want ErrNotFound", err)
			}
		})
	}
}

// With accounting, Strata's writer may set priorities as an operator
// (admin comments it may not write: they are left out) and as root; a
// plain user's write is refused with the cause and the fix.
func TestIntegrationAccountingPriorityWriters(t *testing.T) {
	cl := accounting(t)
	for _, tc := range []struct {
		user    string
		outcome decide.Outcome
		comment bool     // the admin comment is written
		detail  []string // in the refusal
	}{
		{user: "root", outcome: decide.Applied, comment: true},
		{user: cl.Operator, outcome: decide.Applied},
		{user: "alice", outcome: decide.Failed, detail: []string{"user alice may not set priorities",
			"sacctmgr modify user alice set adminlevel=operator"}},
	} {
		t.Run(tc.user, func(t *testing.T) {
			c := clientAs(t, cl, tc.user)
			id := cl.SbatchAs(t, "alice", "-J", tag(t), "--chdir=/tmp", "-o", "/dev/null", "--gres=gpu:1",
				"--begin=now+3600", "--wrap=sleep 30")
			before := cl.ShowJob(t, id)["Priority"]
			d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, Rank: 1, Priority: 88888}
			rep, err := c.Apply(context.Background(), []planner.Decision{d}, slurm.ApplyOptions{Cycle: 7})
			if err != nil || len(rep.Results) != 1 {
				t.Fatalf("Apply = %+v, %v", rep, err)
			}
			r := rep.Results[0]
			if r.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%s), want %s", r.Outcome, r.Detail, tc.outcome)
			}
			for _, s := range tc.detail {
				if !strings.Contains(r.Detail, s) {
					t.Errorf("detail %q lacks %q", r.Detail, s)
				}
			}
			if tc.outcome == decide.Failed && !errors.Is(r.Err, slurm.ErrPermission) {
				t.Errorf("err = %v, want ErrPermission", r.Err)
			}
			want := before
			if tc.outcome == decide.Applied {
				want = "88888"
			}
			// The priority sticks: read again after a scheduling pass.
			time.Sleep(2 * time.Second)
			job := cl.ShowJob(t, id)
			if job["Priority"] != want {
				t.Errorf("priority %s, want %s", job["Priority"], want)
			}
			if got := strings.Contains(job["AdminComment"], "strata:"); got != tc.comment {
				t.Errorf("admin comment %q: written %v, want %v", job["AdminComment"], got, tc.comment)
			}
		})
	}
}

// Jobs that completed are read back from slurmdbd with who, what, where,
// how many GPUs and when.
func TestIntegrationAccountingFinishedJobs(t *testing.T) {
	cl := accounting(t)
	c := clientAs(t, cl, cl.Config.User)
	since := time.Now().Add(-time.Minute)
	name := tag(t)
	ids := map[int64]int{}
	for _, g := range []int{1, 2} {
		ids[cl.SbatchAs(t, "alice", "-J", name, "--chdir=/tmp", "-o", "/dev/null", "--gres=gpu:"+string(rune('0'+g)),
			"-t", "5", "--wrap=sleep 2")] = g
	}
	for id := range ids {
		if st := cl.WaitState(t, id, "COMPLETED", 120*time.Second); st != "COMPLETED" {
			t.Fatalf("job %d is %s, want COMPLETED", id, st)
		}
	}
	var got []slurm.FinishedJob
	// slurmctld sends job records to slurmdbd asynchronously, and the
	// daemon's outage test stops slurmdbd for a few seconds meanwhile.
	deadline := time.Now().Add(60 * time.Second)
	for {
		all, err := c.FinishedJobs(context.Background(), "", since, time.Now().Add(time.Minute))
		if err != nil && time.Now().After(deadline) {
			t.Fatalf("FinishedJobs: %v", err)
		}
		got = got[:0]
		for _, j := range all {
			if _, ok := ids[j.ID]; ok {
				got = append(got, j)
			}
		}
		if len(got) == len(ids) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if len(got) != len(ids) {
		t.Fatalf("slurmdbd lists %d of the %d completed jobs: %+v", len(got), len(ids), got)
	}
	for _, j := range got {
		want := slurm.FinishedJob{ID: j.ID, Cluster: "testcluster", User: "alice", Account: "research", Name: name,
			Partition: "gpu", QOS: "normal", State: "COMPLETED", GPUs: ids[j.ID], TimeLimit: 5 * time.Minute, Nodes: 1}
		if diff := cmp.Diff(want, j, cmpopts.IgnoreFields(slurm.FinishedJob{}, "Submit", "Start", "End", "Eligible")); diff != "" {
			t.Errorf("job %d (-want +got):\n%s", j.ID, diff)
		}
		if j.Submit.Before(since) || j.Eligible.Before(j.Submit) || j.Start.Before(j.Eligible) || !j.End.After(j.Start) ||
			j.End.Sub(j.Start) > time.Minute {
			t.Errorf("job %d times submit %v eligible %v start %v end %v: want since %v ≤ submit ≤ eligible ≤ start < end, a few seconds run",
				j.ID, j.Submit, j.Eligible, j.Start, j.End, since)
		}
	}
}
