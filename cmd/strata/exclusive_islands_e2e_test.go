package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExclusiveFlexibleJobStartsInTheCheaperPartition is issue 16's
// islands on the real Slurm, with the top tier on ([planner] top-tier).
// The test cluster's partition gpua (node1) is full for 30 minutes; gpub
// (node2) has 2 of its 4 GPUs taken for as long. A job asking 4 GPUs,
// allowing 1-4, lists both (-p gpua,gpub): Slurm alone would leave it
// waiting for half an hour. `strata run --enforce` gives it gpub, where
// the plan starts it now on the 2 free GPUs: it writes partition gpub (the
// user's list kept in the admin comment) and the smaller request, and
// Slurm starts the job there. The site turned shrinking on (shrink =
// true): by default no job gets fewer GPUs than it asked for, and the job
// waits for its 4 (planner: TestShrinkKeepsAMarginUnderTheLimit).
func TestExclusiveFlexibleJobStartsInTheCheaperPartition(t *testing.T) {
	b := exclusive(t)
	conf := filepath.Join(t.TempDir(), "strata.toml")
	if err := os.WriteFile(conf, []byte("[planner]\ntop-tier = true\nshrink = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var blockers []int64
	for _, bl := range []struct{ part, gres string }{{"gpua", "gpu:4"}, {"gpub", "gpu:2"}} {
		id := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"blocker-"+bl.part, "-o", "/dev/null", "-p", bl.part,
			"--gres="+bl.gres, "-t", "30", "--wrap=sleep 600")
		blockers = append(blockers, id)
		defer b.cl.MustExec(t, "scancel", strconv.FormatInt(id, 10))
	}
	for _, id := range blockers {
		if st := b.cl.WaitState(t, id, "RUNNING", 60*time.Second); st != "RUNNING" {
			t.Fatalf("blocker %d: %s", id, st)
		}
	}
	flex := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"flex", "-o", "/dev/null", "-p", "gpua,gpub", "--gres=gpu:4",
		"-t", "60", "--comment=strata: model=resnet50 batch=64 epochs=1 samples=128116 gpus=1-4", "--wrap=sleep 5")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var out, errb strings.Builder
		_ = newApp(&out, &errb).RunContext(ctx, []string{"strata", "--config", conf, "run", "--enforce", "--interval", "5s",
			"--only-job-name-prefix", b.prefix, "--metrics-listen", ""})
	}()
	defer func() { cancel(); wg.Wait() }()

	st := b.cl.WaitState(t, flex, "RUNNING", 60*time.Second)
	if st != "RUNNING" && st != "COMPLETED" {
		t.Fatalf("job %d did not start within 60 s: %s\n%s", flex, st, b.cl.MustExec(t, "scontrol", "show", "job", strconv.FormatInt(flex, 10)))
	}
	job := b.cl.ShowJob(t, flex)
	if job["Partition"] != "gpub" || job["NodeList"] != "node2" || !strings.Contains(job["AdminComment"], "parts=gpua,gpub") {
		t.Errorf("job %d ran in partition %q on %q, admin comment %q; want gpub on node2 with parts=gpua,gpub",
			flex, job["Partition"], job["NodeList"], job["AdminComment"])
	}
	detail := b.cl.MustExec(t, "scontrol", "show", "job", "-d", "-o", strconv.FormatInt(flex, 10))
	if m := gpuAlloc.FindStringSubmatch(detail); m == nil || m[1] != "2" {
		t.Errorf("job %d: GPU allocation %v in %q, want 2", flex, m, detail)
	}
}
