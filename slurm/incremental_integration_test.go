package slurm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// TestIntegrationIncrementalSnapshotEqualsFull: on the real cluster, a
// client reading incrementally (SetJobsFullReadEvery) sees, after
// submissions, a cancelled job, a cancelled array task and its own writes,
// the same jobs as a full read; a user's scontrol update that keeps the
// job's state shows at its next full read.
func TestIntegrationIncrementalSnapshotEqualsFull(t *testing.T) {
	cl, full := integration(t)
	inc, err := slurm.New(context.Background(), cl.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	inc.SetJobsFullReadEvery(time.Hour)
	now := time.Now()
	inc.SetClock(func() time.Time { return now })
	name := tag(t)
	later := []string{"--begin=now+3600", "--wrap=sleep 30"} // pending, reason BeginTime, for the whole test
	a := cl.Sbatch(t, append([]string{"-J", name, "--gres=gpu:1"}, later...)...)
	b := cl.Sbatch(t, append([]string{"-J", name, "--gres=gpu:1", "--array=1-3"}, later...)...)
	c := cl.Sbatch(t, append([]string{"-J", name, "--gres=gpu:2", "--comment=strata: model=resnet50 gpus=1-4"}, later...)...)
	e := cl.Sbatch(t, append([]string{"-J", name, "--gres=gpu:1", "--comment=plain"}, later...)...)
	t.Cleanup(func() { _, _ = cl.Exec("scancel", "-n", name) })
	settle(t, cl, a, b, c, e)

	ctx := context.Background()
	if _, err := inc.Snapshot(ctx); err != nil { // the first read is full
		t.Fatal(err)
	}
	d := cl.Sbatch(t, append([]string{"-J", name, "--gres=gpu:3"}, later...)...) // submitted
	cl.MustExec(t, "scancel", fmt.Sprint(a))                                     // cancelled
	cl.MustExec(t, "scancel", fmt.Sprintf("%d_2", b))                            // one task of the array
	rep, err := inc.Apply(ctx, []planner.Decision{                               // written by this client
		{JobID: c, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1, Priority: 4242},
	}, slurm.ApplyOptions{Cycle: 3})
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Err != nil {
		t.Fatalf("Apply = %+v, %v", rep.Results, err)
	}
	settle(t, cl, b, c, d, e) // the jobs updated, submitted or beside a cancelled task: their reasons settled

	now = now.Add(time.Minute)
	got := ours(t, inc, name)
	want := ours(t, full, name)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("incremental snapshot differs from a full one (-full +incremental):\n%s", diff)
	}
	if j := byID(got, c); j.Priority != 4242 || j.GPUsPerNode != 1 {
		t.Errorf("job %d after this client's write: priority %d, %d GPUs; want 4242, 1", c, j.Priority, j.GPUsPerNode)
	}
	if j := byID(got, a); j.ID != 0 {
		t.Errorf("cancelled job %d still in the snapshot (%s)", a, j.State)
	}

	// A user's update that keeps the job pending: not seen until the next
	// full read (the documented limit), then seen.
	cl.MustExec(t, "scontrol", "update", fmt.Sprintf("jobid=%d", e), "comment=strata: model=vgg16 gpus=2")
	now = now.Add(time.Minute)
	if j := byID(ours(t, inc, name), e); j.Comment != "plain" {
		t.Logf("job %d's comment already seen before the full read (%q): fine, but not expected", e, j.Comment)
	}
	// slurmctld shows a job it just updated with reason None until its next
	// scheduling pass says BeginTime again: settle first, or the two reads
	// below may straddle that pass (seen under load: None against BeginTime).
	settle(t, cl, b, c, d, e)
	now = now.Add(time.Hour)
	got, want = ours(t, inc, name), ours(t, full, name)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the full read, incremental snapshot differs from a full one (-full +incremental):\n%s", diff)
	}
	if j := byID(got, e); !strings.Contains(j.Comment, "vgg16") {
		t.Errorf("job %d's comment %q after the full read, want the update", e, j.Comment)
	}
}

// settle waits until Slurm has looked at the jobs once (reason BeginTime
// for all but the cancelled ones): a reason that changes between two reads
// is a change a state listing cannot show.
func settle(t *testing.T, cl interface {
	Exec(args ...string) (string, error)
}, ids ...int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		for _, id := range ids {
			out, _ := cl.Exec("squeue", "-h", "-j", fmt.Sprint(id), "-t", "PD", "-o", "%r")
			for _, r := range strings.Fields(out) {
				ok = ok && r == "BeginTime"
			}
		}
		if ok {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("jobs %v: reasons not BeginTime after 60 s", ids)
}

// ours is the snapshot's jobs named name, sorted.
func ours(t *testing.T, c *slurm.Client, name string) []planner.Job {
	t.Helper()
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []planner.Job
	for _, j := range s.Jobs {
		if j.Name == name {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b planner.Job) int { return int(a.ID - b.ID) })
	return out
}

func byID(jobs []planner.Job, id int64) planner.Job {
	for _, j := range jobs {
		if j.ID == id {
			return j
		}
	}
	return planner.Job{}
}
