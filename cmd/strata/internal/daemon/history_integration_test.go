package daemon

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// TestExclusiveHistoryFromSlurmdbd runs the daemon's cycle against the
// test cluster with accounting and no database: jobs that completed are
// read from slurmdbd and time a pending job of the same user and name that
// has no hint (duration_predicted); while slurmdbd is down the cycle logs
// it, keeps the predictions and reads again once slurmdbd is back.
//
// It stops slurmdbd, which other packages' accounting tests read at the
// same time in make test's parallel stage: make test runs it alone.
func TestExclusiveHistoryFromSlurmdbd(t *testing.T) {
	if testing.Short() || os.Getenv("STRATA_TEST_EXCLUSIVE") != "1" {
		t.Skip("stops the accounting test cluster's slurmdbd: make test runs it alone (STRATA_TEST_EXCLUSIVE=1)")
	}
	cl := slurmtest.ConnectAccounting(t)
	name := fmt.Sprintf("hist-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)
	since := time.Now().Add(-time.Minute)
	for range 2 {
		id := cl.SbatchAs(t, "bob", "-J", name, "--chdir=/tmp", "-o", "/dev/null", "--gres=gpu:1", "-t", "30", "--wrap=sleep 3")
		if st := cl.WaitState(t, id, "COMPLETED", 120*time.Second); st != "COMPLETED" {
			t.Fatalf("job %d is %s, want COMPLETED", id, st)
		}
	}
	waitRecorded(t, cl, name, since, 2)
	pend := cl.SbatchAs(t, "bob", "-J", name, "--chdir=/tmp", "-o", "/dev/null", "--gres=gpu:1", "-t", "30",
		"--begin=now+3600", "--wrap=sleep 3")

	clock := time.Now()
	var logs bytes.Buffer
	log := zerolog.New(&logs)
	o := testOptions()
	o.Compare, o.HistorySource, o.Scope.NamePrefix = nil, HistorySlurmdbd, name
	// The site's defaults (the nice mode: the job's own priority weighs it).
	// In the absolute mode a job is weighed by the site's policy read from
	// slurmdbd, and with slurmdbd down it is left untouched instead
	// (site_policy_unread: slurm's TestExclusiveAccountingPolicyUnreadWritesNothing).
	o.Planner = planner.SiteDefaults()
	d, err := New(log, o, Deps{Connect: func(ctx context.Context) (Cluster, error) {
		c, err := slurm.New(ctx, cl.Config, log)
		if err != nil {
			return nil, err
		}
		c.SetClock(func() time.Time { return clock }) // the learner reads again only every learnEvery
		return c, nil
	}}, NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cycle := func(step string, wantWarn bool) {
		t.Helper()
		logs.Reset()
		res, err := d.RunOnce(context.Background())
		if err != nil {
			t.Fatalf("%s: cycle: %v", step, err)
		}
		reasons := decisionReasons(res.Plan, pend)
		if !slices.Contains(reasons, planner.ReasonPredicted) {
			t.Errorf("%s: pending job %d decided with %v, want %s", step, pend, reasons, planner.ReasonPredicted)
		}
		if got := strings.Contains(logs.String(), "job history unavailable"); got != wantWarn {
			t.Errorf("%s: warning logged %v, want %v; log:\n%s", step, got, wantWarn, logs.String())
		}
	}
	cycle("first read", false)

	if out, err := cl.Script("dbd-stop"); err != nil {
		t.Fatalf("dbd-stop: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = cl.Script("dbd-start") })
	clock = clock.Add(learnEvery + time.Second)
	cycle("slurmdbd down", true)
	clock = clock.Add(time.Second) // not learnEvery: a failed read is tried again the next cycle
	cycle("slurmdbd still down", true)

	if out, err := cl.Script("dbd-start"); err != nil {
		t.Fatalf("dbd-start: %v\n%s", err, out)
	}
	clock = clock.Add(time.Second)
	cycle("slurmdbd back", false)
	if !d.hist.lastRead.Equal(clock) {
		t.Errorf("history last read at %v, want the cycle after slurmdbd came back (%v)", d.hist.lastRead, clock)
	}
}

// waitRecorded waits until slurmdbd lists n completed jobs called name
// (slurmctld sends them asynchronously).
func waitRecorded(t *testing.T, cl *slurmtest.Cluster, name string, since time.Time, n int) {
	t.Helper()
	c, err := slurm.New(context.Background(), cl.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		jobs, err := c.FinishedJobs(context.Background(), "", since, time.Now().Add(time.Minute))
		got := 0
		for _, j := range jobs {
			if j.Name == name {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("slurmdbd lists %d of %d completed jobs %s (last error: %v)", got, n, name, err)
		}
		time.Sleep(time.Second)
	}
}

func decisionReasons(p planner.Plan, id int64) []planner.Reason {
	for _, d := range p.Decisions {
		if d.JobID == id {
			return d.Reasons
		}
	}
	return nil
}
