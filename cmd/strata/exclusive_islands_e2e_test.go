package main

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExclusiveFlexibleJobGoesToTheCheaperPartition is issue 16's islands
// on the real Slurm. The test cluster's partitions gpua (node1) and gpub
// (node2) are both full: gpua's job may run 30 more minutes, gpub's ends
// within a minute. A job listing both (-p gpua,gpub) with a hint waits;
// `strata run --enforce` gives it gpub (the top tier's lower predicted
// cost), writes that partition and records the user's list in the admin
// comment; the job then starts in gpub on node2 when gpub's job ends.
func TestExclusiveFlexibleJobGoesToTheCheaperPartition(t *testing.T) {
	b := exclusive(t)
	long := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"long", "-o", "/dev/null", "-p", "gpua", "--gres=gpu:4",
		"-t", "30", "--wrap=sleep 600")
	short := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"short", "-o", "/dev/null", "-p", "gpub", "--gres=gpu:4",
		"-t", "1", "--wrap=sleep 40")
	defer b.cl.MustExec(t, "scancel", strconv.FormatInt(long, 10))
	for _, id := range []int64{long, short} {
		if st := b.cl.WaitState(t, id, "RUNNING", 60*time.Second); st != "RUNNING" {
			t.Fatalf("blocker %d: %s", id, st)
		}
	}
	flex := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"flex", "-o", "/dev/null", "-p", "gpua,gpub", "--gres=gpu:4",
		"-t", "60", "--comment=strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=4", "--wrap=sleep 5")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var out, errb strings.Builder
		_ = newApp(&out, &errb).RunContext(ctx, []string{"strata", "run", "--enforce", "--interval", "5s",
			"--only-job-name-prefix", b.prefix, "--metrics-listen", ""})
	}()
	defer func() { cancel(); wg.Wait() }()

	// Strata writes the partition while both blockers still run (gpub's
	// for about 40 s): Slurm alone would keep "gpua,gpub" until it starts
	// the job.
	var job map[string]string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		job = b.cl.ShowJob(t, flex)
		if job["Partition"] == "gpub" || job["JobState"] != "PENDING" || time.Now().After(deadline) {
			break
		}
	}
	if job["Partition"] != "gpub" || job["JobState"] != "PENDING" || !strings.Contains(job["AdminComment"], "parts=gpua,gpub") {
		t.Fatalf("job %d: %s in partition %q, admin comment %q; want PENDING in gpub with parts=gpua,gpub",
			flex, job["JobState"], job["Partition"], job["AdminComment"])
	}
	st := b.cl.WaitState(t, flex, "RUNNING", 90*time.Second)
	if st != "RUNNING" && st != "COMPLETED" {
		t.Fatalf("job %d did not start: %s\n%s", flex, st, b.cl.MustExec(t, "scontrol", "show", "job", strconv.FormatInt(flex, 10)))
	}
	if job = b.cl.ShowJob(t, flex); job["Partition"] != "gpub" || job["NodeList"] != "node2" {
		t.Errorf("job %d ran in partition %q on %q, want gpub on node2", flex, job["Partition"], job["NodeList"])
	}
	if st := b.cl.WaitState(t, long, "RUNNING", time.Second); st != "RUNNING" {
		t.Errorf("gpua's job %d is %s: the flexible job must not have disturbed it", long, st)
	}
}
