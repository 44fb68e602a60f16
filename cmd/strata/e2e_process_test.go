package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// daemonProc is a `strata run` process of the test binary.
type daemonProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

func (p *daemonProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.Write(b)
}

func (p *daemonProc) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// waitLog waits until the process logged s.
func (p *daemonProc) waitLog(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.Logs(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not log %q within %v; logs:\n%s", s, timeout, p.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop sends sig and returns the exit error (nil = status 0).
func (p *daemonProc) stop(t *testing.T, sig os.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		return err
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("daemon did not stop within 20 s after %v; logs:\n%s", sig, p.Logs())
		return nil
	}
}

func buildStrata(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "strata")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func startDaemon(t *testing.T, bin string, args ...string) *daemonProc {
	t.Helper()
	p := &daemonProc{done: make(chan error, 1)}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// TestE2ETwoDaemonsSignalsAndReload runs the real binary twice against the
// test cluster and one database: the second waits in standby, takes over
// when the first gets SIGTERM (which exits 0), reloads its configuration on
// SIGHUP and plans at once on SIGUSR1.
func TestE2ETwoDaemonsSignalsAndReload(t *testing.T) {
	b := newE2EBed(t)
	bin := buildStrata(t)
	b.submit(t, "proc", "gpu:1", "strata: model=resnet50 batch=64 iters=100 gpus=1-2")
	cfg := filepath.Join(t.TempDir(), "strata.toml")
	write := func(policy string) {
		body := "interval = \"1h\"\nstandby-poll = \"300ms\"\npolicy = \"" + policy + "\"\n" +
			"only-job-name-prefix = \"" + b.prefix + "\"\nmetrics-listen = \"\"\n"
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("smd")
	args := []string{"--config", cfg, "run"}

	first := startDaemon(t, bin, args...)
	first.waitLog(t, "writer lock taken", 30*time.Second)
	first.waitLog(t, "cycle_id=1", 30*time.Second)
	second := startDaemon(t, bin, args...)
	second.waitLog(t, "standing by", 30*time.Second)

	t0 := time.Now()
	if err := first.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("first daemon after SIGTERM: %v (want exit status 0); logs:\n%s", err, first.Logs())
	}
	second.waitLog(t, "writer lock taken", 30*time.Second)
	t.Logf("standby took over %v after SIGTERM to the leader", time.Since(t0).Round(time.Millisecond))
	second.waitLog(t, "cycle_id=2", 30*time.Second)

	write("fifo")
	if err := second.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	second.waitLog(t, "configuration reloaded", 10*time.Second)
	if err := second.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	second.waitLog(t, "cycle_id=3", 10*time.Second)
	if err := second.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("second daemon after SIGTERM: %v; logs:\n%s", err, second.Logs())
	}
	st := dbtest.Open(t, b.url, false)
	last, err := st.LatestCycle(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if last.ID != 3 || last.Policy != "fifo" || last.Enforce {
		t.Errorf("last cycle %d policy %s enforce %v; want cycle 3 by the reloaded fifo policy, shadow", last.ID, last.Policy, last.Enforce)
	}
}

// ownPostgres starts a throwaway Postgres this test alone may stop and
// start, and returns its URL and the pg-test.sh runner.
func ownPostgres(t *testing.T) (string, func(cmd string)) {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "strata-pgfault-")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(os.Getenv("STRATA_REPO_ROOT"), "scripts", "pg-test.sh")
	if os.Getenv("STRATA_REPO_ROOT") == "" {
		script = filepath.Join("..", "..", "scripts", "pg-test.sh")
	}
	pg := func(cmd string) {
		t.Helper()
		if out, err := exec.Command(script, cmd, dir).CombinedOutput(); err != nil {
			t.Fatalf("pg-test.sh %s: %v\n%s", cmd, err, out)
		}
	}
	pg("up")
	t.Cleanup(func() { _ = exec.Command(script, "down", dir).Run() })
	env, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(env), "\n") {
		if v, ok := strings.CutPrefix(line, dbtest.EnvURL+"="); ok {
			st := dbtest.Open(t, v, true) // migrate
			st.Close()
			return v, pg
		}
	}
	t.Fatalf("no %s in %s/env", dbtest.EnvURL, dir)
	return "", nil
}

// TestE2EEnforcePausesWhilePostgresIsDown: with Postgres stopped the
// enforcing daemon cannot prove it holds the writer lock, so a job
// submitted meanwhile is not touched; when Postgres is back the daemon
// takes the lock again and writes it. The daemon never crashes.
func TestE2EEnforcePausesWhilePostgresIsDown(t *testing.T) {
	b := newE2EBed(t)
	bin := buildStrata(t)
	url, pg := ownPostgres(t)
	t.Setenv("STRATA_DATABASE_URL", url)
	hint := "strata: model=resnet50 batch=64 iters=100 gpus=2-3"
	first := b.submit(t, "pgfault-a", "gpu:1", hint)
	d := startDaemon(t, bin, "run", "--enforce", "--interval", "1s", "--max-backoff", "1s",
		"--only-job-name-prefix", b.prefix, "--metrics-listen", "")
	d.waitLog(t, "writer lock taken", 30*time.Second)
	waitAdminComment(t, b, first, true, 30*time.Second)

	pg("stop")
	second := b.submit(t, "pgfault-b", "gpu:1", hint)
	d.waitLog(t, "cycle failed", 30*time.Second)
	time.Sleep(3 * time.Second) // several failed cycles
	waitAdminComment(t, b, second, false, 0)

	pg("start")
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(d.Logs(), "writer lock taken") < 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	waitAdminComment(t, b, second, true, 30*time.Second)
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("daemon after SIGTERM: %v; logs:\n%s", err, d.Logs())
	}
}

// waitAdminComment waits until job id carries (or, with timeout 0, checks
// that it does not carry) a strata: admin comment.
func waitAdminComment(t *testing.T, b *e2eBed, id int64, want bool, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := strings.Contains(b.cl.ShowJob(t, id)["AdminComment"], "strata:")
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: strata admin comment present=%v, want %v", id, got, want)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestE2EEnvInsideJob: a job script runs `strata env` inside the real
// cluster after the daemon rewrote the job; it sees the decision as shell
// exports (read with scontrol, no credentials).
func TestE2EEnvInsideJob(t *testing.T) {
	b := newE2EBed(t)
	root := filepath.Join(os.Getenv("SLURM_TEST_DIR"), "root")
	if os.Getenv("SLURM_TEST_DIR") == "" {
		root = "/var/cache/strata-test/slurm/root"
	}
	name := "strata-" + strings.TrimSuffix(b.prefix, "-")
	bin := filepath.Join(root, "tmp", name)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Cleanup(func() { os.Remove(bin); os.Remove(bin + ".out") })
	id := b.cl.SbatchAs(t, "alice", "-J", b.prefix+"env", "-o", "/dev/null", "--gres=gpu:1", "-t", "5",
		"--begin=now+1hour", "--comment=strata: model=resnet50 batch=64 iters=100 gpus=2-3",
		"--wrap=/tmp/"+name+" env > /tmp/"+name+".out 2>&1")
	b.strata(t, context.Background(), "run", "--enforce", "--cycles", "1", "--only-job-name-prefix", b.prefix,
		"--metrics-listen", "")
	d := latestDecision(t, b, id)
	b.cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10), "StartTime=now")
	if st := b.cl.WaitState(t, id, "COMPLETED", 90*time.Second); st != "COMPLETED" {
		t.Fatalf("job %d: %s", id, st)
	}
	out, err := os.ReadFile(bin + ".out")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strata env inside job %d:\n%s", id, out)
	for _, want := range []string{"export STRATA_DECIDED=1", "export STRATA_WORKERS=" + strconv.Itoa(d.Workers),
		"export STRATA_CYCLE=1", "export STRATA_JOB_ID=" + strconv.FormatInt(id, 10), "# source: scontrol"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("strata env output lacks %q", want)
		}
	}
}

// TestE2EBacksOffWhileSlurmrestdIsDown: the daemon starts against a
// slurmrestd that answers, which then goes away; cycles fail and back off
// without a crash or a write, and the daemon picks up when it returns.
func TestE2EBacksOffWhileSlurmrestdIsDown(t *testing.T) {
	b := newE2EBed(t)
	bin := buildStrata(t)
	u, err := url.Parse(b.cl.Config.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := slurmtest.NewProxy(t, u.Host)
	t.Setenv("SLURM_REST_URL", proxy.URL)
	hint := "strata: model=resnet50 batch=64 iters=100 gpus=2-3"
	first := b.submit(t, "restfault-a", "gpu:1", hint)
	d := startDaemon(t, bin, "run", "--enforce", "--interval", "1s", "--max-backoff", "1s", "--slurm-retries", "-1",
		"--slurm-timeout", "2s", "--only-job-name-prefix", b.prefix, "--metrics-listen", "")
	waitAdminComment(t, b, first, true, 30*time.Second)

	proxy.Down()
	second := b.submit(t, "restfault-b", "gpu:1", hint)
	d.waitLog(t, "stage=snapshot", 30*time.Second)
	time.Sleep(2 * time.Second)
	waitAdminComment(t, b, second, false, 0)

	proxy.Up()
	waitAdminComment(t, b, second, true, 30*time.Second)
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("daemon after SIGTERM: %v; logs:\n%s", err, d.Logs())
	}
	if n := strings.Count(d.Logs(), "stage=snapshot"); n < 2 {
		t.Errorf("%d failed snapshots logged while slurmrestd was away, want several (back-off, not a crash)", n)
	}
}
