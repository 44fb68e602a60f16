package slurm_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// restoreFields are the fields of `scontrol show job` Strata writes and
// restore puts back.
func restoreFields(kv map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"Priority", "TimeLimit", "TresPerNode", "MinCPUsNode", "MinMemoryNode", "NumNodes", "AdminComment"} {
		out[k] = kv[k]
	}
	return out
}

// strata restore puts back what Strata wrote to a pending job — the
// user's time limit, GPU request (CPUs and memory with it), Slurm's own
// priority, the begin time and the admin comment without Strata's segment
// (another tool's text kept) — writes nothing in a dry run, and leaves a
// job whose limit an admin changed since alone (issue 30.4). Real
// slurmrestd; priority/multifactor computes the priority of an untouched
// twin job, which the restored job must get back.
func TestIntegrationRestore(t *testing.T) {
	cl, c := integration(t)
	ctx := context.Background()
	itoa := func(id int64) string { return strconv.FormatInt(id, 10) }
	gate := cl.Sbatch(t, "-J", tag(t)+"-gate", "--gres=gpu:1", "--begin=now+3600", "--wrap=sleep 30")
	sub := func(name string) int64 {
		return cl.Sbatch(t, "-J", tag(t)+"-"+name, "--gres=gpu:4", "-c", "8", "--mem=16000", "--time=02:00:00",
			"--dependency=afterok:"+itoa(gate), "--comment=strata: gpus=1-4", "--wrap=sleep 30")
	}
	job, changed, noDB, twin := sub("job"), sub("changed"), sub("nodb"), sub("twin")
	cl.MustExec(t, "scontrol", "update", "jobid="+itoa(job), "admincomment=jobstats: keep me")
	before := restoreFields(cl.ShowJob(t, twin))
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	notBefore := s.Now.Add(2 * time.Hour).Truncate(time.Second)
	var ds []planner.Decision
	for _, id := range []int64{job, changed, noDB} {
		ds = append(ds, planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1,
			Rank: 1, Priority: 88888, NotBefore: notBefore, TimeLimit: 30 * time.Minute})
	}
	rep, err := c.Apply(ctx, ds, slurm.ApplyOptions{Cycle: 11, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 3 {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	written := restoreFields(cl.ShowJob(t, job))
	if written["Priority"] != "88888" || written["TimeLimit"] != "00:30:00" || written["TresPerNode"] != "gres/gpu:2" ||
		!strings.Contains(written["AdminComment"], "limit=02:00:00") {
		t.Fatalf("Strata's write not as expected: %v", written)
	}
	// What the audit trail holds (db.RestoreTrail): the first request, 4
	// GPUs, and the body of the write.
	trails := map[int64]slurm.Trail{}
	for _, r := range rep.Results {
		if r.JobID != noDB {
			trails[r.JobID] = slurm.Trail{FirstGPUs: 4, FirstPartition: "gpu", Applied: []string{r.Body}}
		}
	}
	// An admin raises one job's limit since.
	cl.MustExec(t, "scontrol", "update", "jobid="+itoa(changed), "timelimit=00:45:00")
	changedBefore := restoreFields(cl.ShowJob(t, changed))

	dry, err := c.Restore(ctx, []int64{job, changed}, slurm.RestoreOptions{DryRun: true, Now: time.Now(), Trails: trails})
	if err != nil || dry.Count(decide.DryRun) != 1 || dry.Count(slurm.SkippedChanged) != 1 {
		t.Fatalf("dry run: %v %+v", err, dry.Results)
	}
	if got := restoreFields(cl.ShowJob(t, job)); !cmp.Equal(got, written) {
		t.Errorf("dry run wrote: %s", cmp.Diff(written, got))
	}

	res, err := c.Restore(ctx, []int64{job, changed}, slurm.RestoreOptions{Now: time.Now(), Trails: trails})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[int64]decide.Outcome{}
	for _, r := range res.Results {
		outcomes[r.JobID] = r.Outcome
	}
	if want := map[int64]decide.Outcome{job: decide.Applied, changed: slurm.SkippedChanged}; !cmp.Equal(outcomes, want) {
		t.Fatalf("outcomes %v, want %v (%+v)", outcomes, want, res.Results)
	}
	got := restoreFields(cl.ShowJob(t, job))
	want := before // the twin Strata never touched: the user's request, Slurm's priority
	want["AdminComment"] = "jobstats: keep me"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("restored job (-want +got):\n%s", diff)
	}
	s, err = c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := findJob(s, job); !j.DeferredUntil.IsZero() || j.BeginTime.After(s.Now) {
		t.Errorf("after restore: DeferredUntil %v BeginTime %v (now %v), want none / not ahead", j.DeferredUntil, j.BeginTime, s.Now)
	}
	if got := restoreFields(cl.ShowJob(t, changed)); !cmp.Equal(got, changedBefore) {
		t.Errorf("job changed since was written: %s", cmp.Diff(changedBefore, got))
	}

	// Without a database: the limit, priority, begin time and comment
	// come back; the GPU request stays, and the result says why.
	nd, err := c.Restore(ctx, []int64{noDB}, slurm.RestoreOptions{Now: time.Now()})
	if err != nil || nd.Count(decide.Applied) != 1 {
		t.Fatalf("restore without a database: %v %+v", err, nd.Results)
	}
	kv := restoreFields(cl.ShowJob(t, noDB))
	// Its priority is Slurm's for its (smaller) size now, not Strata's.
	if kv["TimeLimit"] != "02:00:00" || kv["Priority"] == "88888" || kv["Priority"] == "0" || kv["TresPerNode"] != "gres/gpu:2" ||
		kv["AdminComment"] != "" {
		t.Errorf("restored without a database: %v", kv)
	}
	t.Logf("restored: %+v; without a database: %+v", res.Results[0], nd.Results[0])
	if notes := strings.Join(nd.Results[0].Notes, "; "); !strings.Contains(notes, "GPU request: not known without the audit trail") {
		t.Errorf("notes %q do not say why the GPU request stays", notes)
	}
}

// A job that started with a limit Strata lowered gets its own back, so
// that Slurm does not end it at Strata's (issue 30.4): the rest of a
// running job's request stays, and so does its admin comment.
func TestIntegrationRestoreRunningLimit(t *testing.T) {
	cl, c := integration(t)
	ctx := context.Background()
	gate := cl.Sbatch(t, "-J", tag(t)+"-gate", "--gres=gpu:1", "--begin=now+3600", "--wrap=sleep 30")
	id := cl.Sbatch(t, "-J", tag(t)+"-run", "--gres=gpu:1", "--time=02:00:00", "--dependency=after:"+strconv.FormatInt(gate, 10),
		"--comment=strata: gpus=1", "--wrap=sleep 300")
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1,
		Priority: 88888, TimeLimit: 30 * time.Minute}
	rep, err := c.Apply(ctx, []planner.Decision{d}, slurm.ApplyOptions{Cycle: 12, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 1 {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	cl.MustExec(t, "scancel", strconv.FormatInt(gate, 10)) // "after": the job may start now
	cl.WaitState(t, id, "RUNNING", time.Minute)
	defer cl.MustExec(t, "scancel", strconv.FormatInt(id, 10))
	comment := cl.ShowJob(t, id)["AdminComment"]
	trails := map[int64]slurm.Trail{id: {FirstGPUs: 1, Applied: []string{rep.Results[0].Body}}}
	res, err := c.Restore(ctx, []int64{id}, slurm.RestoreOptions{Now: time.Now(), Trails: trails})
	if err != nil || res.Count(decide.Applied) != 1 {
		t.Fatalf("restore: %v %+v", err, res.Results)
	}
	kv := cl.ShowJob(t, id)
	if kv["JobState"] != "RUNNING" || kv["TimeLimit"] != "02:00:00" || kv["AdminComment"] != comment {
		t.Errorf("running job after restore: state %s, limit %s, admin comment %q (want RUNNING, 02:00:00, %q)",
			kv["JobState"], kv["TimeLimit"], kv["AdminComment"], comment)
	}
}

// A job Strata narrowed to one of the partitions its user listed gets the
// whole list back (the admin comment's parts=). The narrowed state is set
// up with scontrol: slurmctld answers about one partition change in two
// with EAGAIN (error 11) on this bed, which Apply does not send again;
// restore does (busy).
func TestIntegrationRestorePartition(t *testing.T) {
	cl, c := integration(t)
	ctx := context.Background()
	id := cl.Sbatch(t, "-J", tag(t)+"-parts", "-p", "gpub", "--gres=gpu:1", "--begin=now+3600", "--comment=strata: gpus=1",
		"--wrap=sleep 30")
	cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10),
		"admincomment=strata: workers=1 ps=0 rank=1 cycle=13 parts=gpua,gpub why=partition_chosen n=1")
	res, err := c.Restore(ctx, []int64{id}, slurm.RestoreOptions{Now: time.Now()})
	if err != nil || res.Count(decide.Applied) != 1 {
		t.Fatalf("restore: %v %+v", err, res.Results)
	}
	if kv := cl.ShowJob(t, id); kv["Partition"] != "gpua,gpub" || kv["AdminComment"] != "" {
		t.Errorf("after restore: partition %q, admin comment %q; want the user's gpua,gpub and none", kv["Partition"], kv["AdminComment"])
	}
}
