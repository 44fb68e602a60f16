package slurm_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExclusivePlannedStartByTheLimit (issue 30.3) on the real cluster: a
// running job that holds every GPU, modelled at days by its hint but with
// a 10-minute limit, ends in Strata's plan by its limit, so the job queued
// behind it is planned to start at most 10 minutes after that limit, and
// no later than slurmctld's own estimate (squeue --start) when Slurm gives
// one. Before, the plan started it days later.
func TestExclusivePlannedStartByTheLimit(t *testing.T) {
	if os.Getenv("STRATA_TEST_EXCLUSIVE") != "1" {
		t.Skip("holds every GPU of the shared test cluster: make test runs it alone (STRATA_TEST_EXCLUSIVE=1)")
	}
	cl, c := integration(t)
	ctx := context.Background()
	long := "--comment=strata: model=resnet50 batch=64 epochs=90 samples=1281167"
	a := cl.Sbatch(t, "-J", tag(t)+"-a", "-p", "gpu", "-N", "2", "--gres=gpu:4", "--time=10", long, "--wrap=sleep 600")
	t.Cleanup(func() { _, _ = cl.Exec("scancel", itoa(a)) })
	if st := cl.WaitState(t, a, "RUNNING", 60*time.Second); st != "RUNNING" {
		t.Fatalf("job %d is %s, want RUNNING", a, st)
	}
	b := cl.Sbatch(t, "-J", tag(t)+"-b", "-p", "gpu", "-N", "1", "--gres=gpu:4", "--time=5", "--wrap=sleep 60")
	t.Cleanup(func() { _, _ = cl.Exec("scancel", itoa(b)) })
	snap, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var started time.Time
	for _, j := range snap.Jobs {
		if j.ID == a {
			started = j.StartTime
		}
	}
	if started.IsZero() {
		t.Fatalf("job %d has no start time in the snapshot", a)
	}
	plan := planSMD(t, snap)
	end := started.Add(10 * time.Minute)
	if got := plan[a].PredictedEnd; got.After(end.Add(time.Minute)) {
		t.Errorf("running job %d planned to end %v, past its limit %v", a, got, end)
	}
	got := plan[b].PredictedStart
	if got.IsZero() || got.After(end.Add(10*time.Minute)) {
		t.Fatalf("job %d queued behind a job that ends at its limit %v is planned to start %v, want by %v",
			b, end, got, end.Add(10*time.Minute))
	}
	// slurmctld's estimate, once its backfill pass has made one.
	for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(3 * time.Second) {
		out, err := cl.Exec("squeue", "-h", "-j", itoa(b), "--start", "-o", "%S")
		// squeue prints the cluster's local time; the test bed's chroot runs
		// in UTC, as this host does.
		est, perr := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimSpace(out), time.UTC)
		if err != nil || perr != nil {
			continue
		}
		if got.After(est.Add(time.Minute)) {
			t.Errorf("job %d planned to start %v, later than slurmctld's estimate %v", b, got, est)
		}
		return
	}
	t.Logf("slurmctld gave no start estimate for job %d within 45 s: compared with the limit only", b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
