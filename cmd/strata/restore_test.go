package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// A --jobs value that is not a job ID is refused with exit 2, naming the
// flag and the form wanted, before anything is read.
func TestRestoreBadJobs(t *testing.T) {
	_, errOut, err := runStrata(t, "restore", "--jobs", "12,x3")
	if exitCodeOf(err) != 2 || !strings.Contains(err.Error(), `--jobs: "x3" is not a job ID`) {
		t.Errorf("restore --jobs 12,x3: exit %d, %v %s", exitCodeOf(err), err, errOut)
	}
}

// `strata restore` end to end, with the audit trail in Postgres as the
// daemon leaves it: the dry run says what it would put back and writes
// nothing; --enforce puts the user's 4 GPUs and 2-hour limit back, and the
// write is in the audit trail under policy restore (issue 30.4).
func TestIntegrationRestoreCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster and Postgres")
	}
	cl := slurmtest.Connect(t)
	t.Setenv("SLURM_REST_URL", cl.Config.URL)
	t.Setenv("SLURM_USER_NAME", cl.Config.User)
	t.Setenv("SLURM_JWT", string(cl.Config.Token))
	t.Setenv("STRATA_SLURM_TOKEN_FILE", "")
	url := dbtest.URL(t)
	st := dbtest.Open(t, url, true)
	t.Setenv("STRATA_DATABASE_URL", url)
	ctx := context.Background()
	c, err := slurm.New(ctx, cl.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	gate := cl.Sbatch(t, "-J", "it-restore-gate", "--gres=gpu:1", "--begin=now+3600", "--wrap=sleep 30")
	id := cl.Sbatch(t, "-J", "it-restore-cmd", "--gres=gpu:4", "--time=02:00:00", fmt.Sprintf("--dependency=afterok:%d", gate),
		"--comment=strata: gpus=1-4", "--wrap=sleep 30")
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 1,
		Priority: 77777, TimeLimit: 30 * time.Minute, Reasons: []planner.Reason{planner.ReasonClaimBound}}
	rep, err := c.Apply(ctx, []planner.Decision{d}, slurm.ApplyOptions{Cycle: 1, Nodes: s.Nodes, Now: s.Now})
	if err != nil || rep.Count(decide.Applied) != 1 {
		t.Fatalf("apply: %v %+v", err, rep.Results)
	}
	rec := &db.Cycle{Cluster: s.Cluster, SnapshotID: s.ID, Policy: "smd", Enforce: true, StartedAt: time.Now().UTC(),
		Decisions: []db.CycleDecision{{Decision: d, User: "root", Partition: "gpu", State: planner.JobPending,
			RequestedGPUs: 4, Outcome: decide.Applied, Body: rep.Results[0].Body}}}
	if err := st.SaveCycle(ctx, rec); err != nil {
		t.Fatal(err)
	}
	job := fmt.Sprint(id)
	out, err := runStrataDB(t, "restore", "--jobs", job)
	if err != nil || !strings.Contains(out, "would put back GPUs 1 → 4") || !strings.Contains(out, "it writes these jobs again") || !strings.Contains(out, "would put back time limit 00:30:00 → 02:00:00") ||
		!strings.Contains(out, "restore: 1 job(s) would be restored") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if kv := cl.ShowJob(t, id); kv["TresPerNode"] != "gres/gpu:1" || kv["Priority"] != "77777" {
		t.Errorf("the dry run wrote: %v", kv)
	}
	out, err = runStrataDB(t, "restore", "--enforce", "--jobs", job)
	if err != nil || !strings.Contains(out, "restore: 1 job(s) restored") {
		t.Fatalf("restore --enforce: %v\n%s", err, out)
	}
	if kv := cl.ShowJob(t, id); kv["TresPerNode"] != "gres/gpu:4" || kv["TimeLimit"] != "02:00:00" || kv["Priority"] == "77777" ||
		kv["AdminComment"] != "" {
		t.Errorf("after restore: TresPerNode %s TimeLimit %s Priority %s AdminComment %q", kv["TresPerNode"], kv["TimeLimit"],
			kv["Priority"], kv["AdminComment"])
	}
	ds, err := st.DecisionsForJob(ctx, id, s.Cluster, 5)
	if err != nil || len(ds) == 0 || ds[0].Policy != db.RestorePolicy || ds[0].Outcome != decide.Applied {
		t.Fatalf("audit trail after restore: %v %+v", err, ds)
	}
	// Run again: nothing of Strata's is left on the job.
	out, err = runStrataDB(t, "restore", "--enforce", "--jobs", job)
	if err != nil || !strings.Contains(out, "no Strata segment") {
		t.Errorf("second restore: %v\n%s", err, out)
	}
}
