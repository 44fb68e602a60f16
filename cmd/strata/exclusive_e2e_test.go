package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests named TestExclusive* need every GPU of the test cluster to
// themselves: `make test` runs them in a step of their own, after the
// parallel suite (STRATA_TEST_EXCLUSIVE=1).
func exclusive(t *testing.T) *e2eBed {
	t.Helper()
	if os.Getenv("STRATA_TEST_EXCLUSIVE") != "1" {
		t.Skip("needs the whole test cluster: make test runs it alone (STRATA_TEST_EXCLUSIVE=1)")
	}
	b := newE2EBed(t)
	deadline := time.Now().Add(2 * time.Minute)
	for strings.TrimSpace(b.cl.MustExec(t, "squeue", "-h", "-t", "PD,R,CG", "-o", "%i")) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the test cluster is not idle:\n%s", b.cl.MustExec(t, "squeue"))
		}
		time.Sleep(time.Second)
	}
	return b
}

// TestExclusiveWaitingJobsUseTheFreedGPUs is issue 11's scenario on the
// real Slurm: a blocker holds all 8 GPUs for 20 s; two jobs wait, each
// asking 4 GPUs and allowing 1-4; `strata run --enforce` plans every 5 s.
// Before the contract, both were rewritten to 1 GPU while they waited and
// Slurm started them so: 2 of 8 free GPUs used. Now they must start on at
// least 6.
func TestExclusiveWaitingJobsUseTheFreedGPUs(t *testing.T) {
	b := exclusive(t)
	blocker := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"blocker", "-o", "/dev/null", "-N", "2", "--gres=gpu:4",
		"-t", "5", "--wrap=sleep 20")
	if st := b.cl.WaitState(t, blocker, "RUNNING", 60*time.Second); st != "RUNNING" {
		t.Fatalf("blocker %d: %s", blocker, st)
	}
	var ids []int64
	for _, model := range []string{"resnet50", "vgg16"} {
		ids = append(ids, b.cl.SbatchAs(t, "alice", "-J", b.prefix+model, "-o", "/dev/null", "--gres=gpu:4",
			"-t", "24:00:00", "--comment=strata: model="+model+" batch=64 epochs=1 samples=1281167 gpus=1-4",
			"--wrap=sleep 15"))
	}
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

	total := 0
	for _, id := range ids {
		st := b.cl.WaitState(t, id, "RUNNING", 120*time.Second)
		if st != "RUNNING" && st != "COMPLETED" {
			t.Fatalf("job %d did not start: %s\n%s", id, st, b.cl.MustExec(t, "scontrol", "show", "job", strconv.FormatInt(id, 10)))
		}
		detail := b.cl.MustExec(t, "scontrol", "show", "job", "-d", "-o", strconv.FormatInt(id, 10))
		m := gpuAlloc.FindStringSubmatch(detail)
		if m == nil {
			t.Fatalf("job %d: no GPU allocation in %q", id, detail)
		}
		n, _ := strconv.Atoi(m[1])
		t.Logf("job %d started with %d GPUs", id, n)
		total += n
	}
	if total < 6 {
		t.Errorf("the two waiting jobs started on %d of the 8 freed GPUs, want at least 6", total)
	}
}

// TestExclusivePreemptAndResume is issue 14 end to end on the real Slurm:
// a job that checkpoints and opted in (scripts/examples/checkpoint-
// requeue.sh, --requeue, preempt=yes) holds all 8 GPUs; a short job
// arrives; `strata run --enforce --policy tiresias` (a tiny queue threshold)
// signals the long job, which checkpoints and requeues itself; the short
// job runs; the long job is restarted after Slurm's requeue delay,
// resumes from its checkpoint and finishes its count. A job that did not
// opt in, running beside it, is never signalled.
func TestExclusivePreemptAndResume(t *testing.T) {
	b := exclusive(t)
	script, err := os.ReadFile("../../scripts/examples/checkpoint-requeue.sh")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "strata.toml")
	if err := os.WriteFile(cfg, []byte("[planner]\ntiresias-threshold-gpu-hours = 0.001\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"long", "-D", "/tmp", "-o", "/dev/null", "--requeue",
		"-N", "2", "--gres=gpu:3", "-t", "10", "--export=ALL,STEPS=40",
		"--comment=strata: gpus=6 preempt=yes", "--wrap="+string(script))
	plain := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"plain", "-D", "/tmp", "-o", "/dev/null",
		"-N", "2", "--gres=gpu:1", "-t", "10", "--wrap=sleep 45")
	for _, id := range []int64{long, plain} {
		if st := b.cl.WaitState(t, id, "RUNNING", 60*time.Second); st != "RUNNING" {
			t.Fatalf("job %d: %s", id, st)
		}
	}
	time.Sleep(5 * time.Second) // progress to keep, attained service past the threshold
	short := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"short", "-D", "/tmp", "-o", "/dev/null",
		"--gres=gpu:3", "-t", "5", "--comment=strata: gpus=3", "--wrap=sleep 5")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var logs strings.Builder
	go func() {
		defer wg.Done()
		var out strings.Builder
		_ = newApp(&out, &logs).RunContext(ctx, []string{"strata", "--config", cfg, "run", "--enforce",
			"--policy", "tiresias", "--interval", "2s", "--min-run-before-preempt", "1s",
			"--only-job-name-prefix", b.prefix, "--metrics-listen", ""})
	}()
	defer func() { cancel(); wg.Wait() }()

	if st := b.cl.WaitState(t, short, "COMPLETED", 120*time.Second); st != "COMPLETED" {
		t.Fatalf("short job %d: %s\nlong job: %v\nlogs:\n%s", short, st, b.cl.ShowJob(t, long), logs.String())
	}
	if st := b.cl.WaitState(t, long, "COMPLETED", 150*time.Second); st != "COMPLETED" {
		t.Fatalf("long job %d did not finish after its restart: %s\n%v", long, st, b.cl.ShowJob(t, long))
	}
	kv := b.cl.ShowJob(t, long)
	if kv["Restarts"] == "0" || !strings.Contains(kv["AdminComment"], "sig=") {
		t.Errorf("long job: Restarts=%s AdminComment=%q: want a restart after Strata's signal", kv["Restarts"], kv["AdminComment"])
	}
	log := b.cl.MustExec(t, "cat", fmt.Sprintf("/tmp/strata-ck.%d.log", long))
	if !strings.Contains(log, "resumed at ") || strings.Contains(log, "resumed at 0\n") || !strings.Contains(log, "done n=40") {
		t.Errorf("long job's log %q: want a resume from its checkpoint and the full count", log)
	}
	if kv := b.cl.ShowJob(t, plain); kv["Restarts"] != "0" || strings.Contains(kv["AdminComment"], "sig=") {
		t.Errorf("the job that did not opt in was disturbed: Restarts=%s AdminComment=%q", kv["Restarts"], kv["AdminComment"])
	}
}
