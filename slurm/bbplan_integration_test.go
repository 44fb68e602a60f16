package slurm_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// Issue 15.5, end to end: a job holds 60 % of the pool; two more ask 60 %
// each, the long one (30 min limit) submitted before the short one (2 min).
// Neither fits beside the first, nor with the other. Planned from the
// snapshot Strata reads (pools from scontrol), both lack only space, so
// both rank among the starts, the short one first, with no begin time
// (docs/planner.md § Burst buffers in time); written through the adapter,
// slurmctld holds the short one at the higher priority. When the first
// ends both run, one after the other, and the pool's use never exceeds its
// capacity. (Which stages in first is Slurm's choice: see the end.)
func TestIntegrationBurstBufferJobsKeepPlanOrder(t *testing.T) {
	cl, _ := integration(t)
	ctx := context.Background()
	cfg := cl.Config
	cfg.Scontrol = cl.Command(t, "scontrol")
	c, err := slurm.New(ctx, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	pool := func() burstbuffer.Pool {
		ps, err := burstbuffer.ParseShowBurst(cl.MustExec(t, "scontrol", "show", "burst"))
		if err != nil || len(ps) != 1 {
			t.Fatalf("scontrol show burst: %v %+v", err, ps)
		}
		return ps[0]
	}
	each := pool().Total * 6 / 10 >> 30 // GiB
	name := tag(t)
	// Job a holds the space until the test has written the plan (the file
	// go appears; at most 5 minutes), not for a fixed time: on a loaded
	// machine a fixed hold could end before the write, and Slurm would
	// then start the jobs in submission order.
	release := fmt.Sprintf("/tmp/%s-go", name)
	t.Cleanup(func() { _, _ = cl.Exec("touch", release) }) // never leave job a holding the pool
	submit := func(suffix string, body string, limit string) int64 {
		path := fmt.Sprintf("/tmp/%s-%s.sh", name, suffix)
		script := fmt.Sprintf("#!/bin/bash\n#BB_LUA pool=nvme capacity=%dG\n%s\n", each, body)
		cl.MustExec(t, "sh", "-c", fmt.Sprintf("printf '%%s' '%s' > %s && chmod 755 %s", script, path, path))
		t.Cleanup(func() { _, _ = cl.Exec("rm", "-f", path) })
		// burst_buffer/lua refuses root: submitted as alice.
		return cl.SbatchAs(t, "alice", "-J", name+"-"+suffix, "--gres=gpu:1", "-t", limit, "-D", "/tmp", path)
	}
	a := submit("a", fmt.Sprintf("for i in $(seq 600); do [ -f %s ] && break; sleep 0.5; done; sleep 2", release), "10")
	if st := cl.WaitState(t, a, "RUNNING", 60*time.Second); st != "RUNNING" {
		t.Fatalf("job %d (holds the space) is %s", a, st)
	}
	long := submit("long", "sleep 1", "30")
	short := submit("short", "sleep 1", "2")

	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.BurstBufferPools) != 1 {
		t.Fatalf("snapshot pools %+v: want nvme from scontrol", s.BurstBufferPools)
	}
	ds := planSMD(t, s)
	dl, dsh := ds[long], ds[short]
	for _, d := range []planner.Decision{dl, dsh} {
		if d.Action != planner.ActionUpdate || d.Start || len(d.Reasons) == 0 || d.Reasons[0] != planner.ReasonBurstBufferFull || !d.NotBefore.IsZero() {
			t.Fatalf("decision %+v: want a waiting update, reason burst_buffer_full first, no begin time", d)
		}
	}
	if dsh.Rank >= dl.Rank {
		t.Fatalf("ranks: short job %d has %d, long job %d has %d; want the short one first", short, dsh.Rank, long, dl.Rank)
	}
	rep, err := c.Apply(ctx, []planner.Decision{dsh, dl}, slurm.ApplyOptions{Cycle: 15, Nodes: s.Nodes, Now: s.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Outcome != decide.Applied {
			t.Fatalf("apply: %+v", rep.Results)
		}
	}
	// The writes reach Slurm's priorities: the short job ahead.
	prio := func(id int64) int64 {
		v, err := strconv.ParseInt(cl.ShowJob(t, id)["Priority"], 10, 64)
		if err != nil {
			t.Fatalf("job %d priority: %v", id, err)
		}
		return v
	}
	if ps, pl := prio(short), prio(long); ps <= pl {
		t.Fatalf("slurmctld priorities after the writes: short job %d %d, long job %d %d: want the short one higher", short, ps, long, pl)
	}
	cl.MustExec(t, "touch", release) // job a ends: its space frees

	// The order comes from slurmctld's StartTime of each job, not from
	// watching states: a short job can run, stage out (COMPLETING) and be
	// seen only after the long one is RUNNING by a poll on a loaded machine
	// (seen in make test: "started in the order [long short]").
	startOf := func(id int64) (time.Time, bool) {
		j := cl.ShowJob(t, id)
		if j["JobState"] == "PENDING" {
			return time.Time{}, false
		}
		st, err := time.ParseInLocation("2006-01-02T15:04:05", j["StartTime"], time.UTC)
		return st, err == nil
	}
	deadline := time.Now().Add(150 * time.Second)
	var ts, tl time.Time
	for {
		if p := pool(); p.Used > p.Total {
			t.Fatalf("pool nvme: %d bytes in use of %d", p.Used, p.Total)
		}
		var oks, okl bool
		ts, oks = startOf(short)
		tl, okl = startOf(long)
		if oks && okl {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 150 s: short %d started %v (%v), long %d started %v (%v)", short, oks, ts, long, okl, tl)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Which of the two stages in first is Slurm's to say, not Strata's:
	// the burst-buffer plugins hand freed space to waiting jobs in order of
	// their expected start (bb_job_queue_sort), and slurmctld expects both
	// at the same moment (when job a's space frees), so after a backfill
	// pass the tie goes by its job list (submission order: the long job),
	// after a main-scheduler pass by priority (the short job). make test saw
	// both; docs/planner.md § Burst buffers in time says so.
	t.Logf("started: short job %d at %v, long job %d at %v", short, ts, long, tl)
	if st := cl.ShowJob(t, a)["JobState"]; st != "COMPLETED" {
		t.Errorf("job %d is %s after both others started: the pool was over-committed", a, st)
	}
}
