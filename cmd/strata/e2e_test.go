package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/explain"
	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// e2eBed is the real test cluster plus a fresh, migrated database, with the
// environment `strata` reads set for both.
type e2eBed struct {
	cl     *slurmtest.Cluster
	url    string
	prefix string // job names of this test start with it (--only-job-name-prefix)
}

func newE2EBed(t *testing.T) *e2eBed {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: needs the Slurm test cluster and Postgres (skipped only under -short)")
	}
	cl := slurmtest.Connect(t)
	url := dbtest.URL(t)
	dbtest.Open(t, url, true) // migrate
	t.Setenv("SLURM_REST_URL", cl.Config.URL)
	t.Setenv("SLURM_USER_NAME", cl.Config.User)
	t.Setenv("SLURM_JWT", string(cl.Config.Token))
	t.Setenv("STRATA_DATABASE_URL", url)
	t.Setenv("STRATA_CONFIG", "")
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return &e2eBed{cl: cl, url: url, prefix: "e2e" + hex.EncodeToString(b) + "-"}
}

// submit queues a job as alice that cannot start before StartTime is moved
// (--begin), so that it is PENDING (reason BeginTime, not held) while the
// daemon plans it.
func (b *e2eBed) submit(t *testing.T, name, gres, comment string) int64 {
	t.Helper()
	args := []string{"-J", b.prefix + name, "-o", "/dev/null", "--gres=" + gres, "-t", "5", "--begin=now+1hour", "--wrap=sleep 8"}
	if comment != "" {
		args = append(args, "--comment="+comment)
	}
	return b.cl.SbatchAs(t, "alice", args...)
}

// strata runs the CLI in-process and returns stdout.
func (b *e2eBed) strata(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	err := newApp(&out, &errb).RunContext(ctx, append([]string{"strata", "--log-level", "debug"}, args...))
	if err != nil {
		t.Fatalf("strata %v: %v\nstderr:\n%s", args, err, errb.String())
	}
	return out.String()
}

// gpuAlloc finds the GPUs Slurm allocated in `scontrol show job -d -o`.
var gpuAlloc = regexp.MustCompile(`JOB_GRES=gpu:(?:[^:\s]+:)?(\d+)`)

// scontrolGPUs is the GPU request of a job as `scontrol show job` shows it
// (TresPerNode gres/gpu:N times NumNodes).
func scontrolGPUs(t *testing.T, kv map[string]string) int {
	t.Helper()
	tpn := kv["TresPerNode"]
	i := strings.LastIndex(tpn, ":")
	n, err := strconv.Atoi(tpn[i+1:])
	if err != nil {
		t.Fatalf("TresPerNode %q: %v", tpn, err)
	}
	nodes, _ := strconv.Atoi(strings.SplitN(kv["NumNodes"], "-", 2)[0])
	return n * max(1, nodes)
}

func latestDecision(t *testing.T, b *e2eBed, id int64) db.StoredDecision {
	t.Helper()
	out := b.strata(t, context.Background(), "explain", "--json", strconv.FormatInt(id, 10))
	var ex explain.Explanation
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("explain --json: %v\n%s", err, out)
	}
	if ex.Latest == nil {
		t.Fatalf("explain: no decision recorded for job %d", id)
	}
	return *ex.Latest
}

// TestE2EEnforce: hinted and unhinted jobs submitted with sbatch, one
// enforce cycle of `strata run`, then scontrol shows the planned GPU counts
// and priorities, Slurm runs the jobs with them, the unhinted job keeps its
// GPUs, the opted-out job is untouched, and `strata explain` tells it.
func TestE2EEnforce(t *testing.T) {
	b := newE2EBed(t)
	hinted := map[string]int64{
		"widen":  b.submit(t, "widen", "gpu:1", "strata: model=resnet50 batch=64 epochs=1 samples=50000 gpus=2-4 arch=allreduce"),
		"choose": b.submit(t, "choose", "gpu:4", "strata: model=vgg16 batch=32 iters=200 gpus=1-4 arch=ps ps=auto"),
	}
	plain := b.submit(t, "plain", "gpu:2", "")
	optOut := b.submit(t, "optout", "gpu:1", "strata: model=resnet50 batch=64 iters=100 gpus=2-4 rewrite=no")
	before := b.cl.ShowJob(t, optOut)

	t0 := time.Now()
	b.strata(t, context.Background(), "run", "--enforce", "--cycles", "1", "--only-job-name-prefix", b.prefix,
		"--metrics-listen", "", "--priority-hysteresis", "1")
	t.Logf("strata run --cycles 1 (connect, snapshot, plan, apply, save): %v", time.Since(t0))

	niced := 0
	for name, id := range hinted {
		d := latestDecision(t, b, id)
		kv := b.cl.ShowJob(t, id)
		if d.Outcome != decide.Applied {
			t.Errorf("%s (job %d): outcome %q (%s), want applied", name, id, d.Outcome, d.OutcomeDetail)
			continue
		}
		if got := scontrolGPUs(t, kv); got != d.Workers {
			t.Errorf("%s (job %d): scontrol shows %d GPUs, the plan said %d", name, id, got, d.Workers)
		}
		// The nice priority mode (the default): the nice sent, if any, is
		// the job's, and Slurm's priority stays its own (issue 31).
		var sent struct{ Nice *int64 }
		_ = json.Unmarshal([]byte(d.Body), &sent)
		if sent.Nice != nil && kv["Nice"] != strconv.FormatInt(*sent.Nice, 10) || d.Priority != 0 {
			t.Errorf("%s (job %d): scontrol Nice=%s Priority=%s after body %s (plan priority %d)", name, id, kv["Nice"], kv["Priority"], d.Body, d.Priority)
		}
		if sent.Nice != nil && *sent.Nice != 0 {
			niced++
		}
		if !strings.Contains(kv["AdminComment"], "workers="+strconv.Itoa(d.Workers)) {
			t.Errorf("%s (job %d): AdminComment %q lacks workers=%d", name, id, kv["AdminComment"], d.Workers)
		}
	}
	if niced == 0 {
		t.Error("no hinted job was written a nice: the first ranked gets −band")
	}
	if d := latestDecision(t, b, hinted["widen"]); d.Workers < 2 {
		t.Errorf("job asking 1 GPU with gpus=2-4 planned with %d workers", d.Workers)
	}
	if got := scontrolGPUs(t, b.cl.ShowJob(t, plain)); got != 2 {
		t.Errorf("unhinted job resized to %d GPUs", got)
	}
	after := b.cl.ShowJob(t, optOut)
	for _, k := range []string{"Priority", "TresPerNode", "AdminComment"} {
		if before[k] != after[k] {
			t.Errorf("rewrite=no job: %s changed from %q to %q", k, before[k], after[k])
		}
	}

	// Let Slurm start them: it runs them with the rewritten allocations.
	for name, id := range hinted {
		want := latestDecision(t, b, id).Workers
		b.cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10), "StartTime=now")
		if st := b.cl.WaitState(t, id, "RUNNING", 90*time.Second); st != "RUNNING" && st != "COMPLETED" {
			t.Fatalf("%s (job %d) did not run: %s", name, id, st)
		}
		detail := b.cl.MustExec(t, "scontrol", "show", "job", "-d", "-o", strconv.FormatInt(id, 10))
		if m := gpuAlloc.FindStringSubmatch(detail); m == nil || m[1] != strconv.Itoa(want) {
			t.Errorf("%s (job %d) ran with %v GPUs (scontrol -d: %q), want %d", name, id, m, detail, want)
		}
	}

	story := b.strata(t, context.Background(), "explain", strconv.FormatInt(hinted["widen"], 10))
	t.Logf("strata explain %d:\n%s", hinted["widen"], story)
	for _, want := range []string{"Decided in cycle", "enforce mode", "written to the job", "policy fifo would have",
		"planner chose a different GPU"} {
		if !strings.Contains(story, want) {
			t.Errorf("explain lacks %q:\n%s", want, story)
		}
	}
}

// TestE2EShadowWritesNothing: the default (shadow) mode records what it
// would do and leaves every job exactly as submitted.
func TestE2EShadowWritesNothing(t *testing.T) {
	b := newE2EBed(t)
	id := b.submit(t, "shadow", "gpu:1", "strata: model=resnet50 batch=64 iters=100 gpus=2-4")
	before := b.cl.ShowJob(t, id)
	b.strata(t, context.Background(), "run", "--cycles", "2", "--interval", "1s", "--only-job-name-prefix", b.prefix,
		"--metrics-listen", "")
	after := b.cl.ShowJob(t, id)
	for _, k := range []string{"Priority", "TresPerNode", "AdminComment", "NumNodes"} {
		if before[k] != after[k] {
			t.Errorf("shadow mode changed %s from %q to %q", k, before[k], after[k])
		}
	}
	d := latestDecision(t, b, id)
	if d.Enforce || d.Outcome != decide.DryRun || !strings.Contains(d.Body, "tres_per_node") {
		t.Errorf("shadow decision %+v: want a dry-run with the body enforce would send", d)
	}
	story := b.strata(t, context.Background(), "explain", strconv.FormatInt(id, 10))
	if !strings.Contains(story, "in enforce mode Strata would have sent") {
		t.Errorf("explain of a shadow decision lacks the enforce what-if:\n%s", story)
	}
}
