package slurm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// Issue 24.1, end to end on the real test cluster: a PS job planned with W
// workers and P servers is written as W + P tasks; Slurm allocates them
// (NumTasks, tasks per node, CPUs per task in its record); the job's script
// lays the roles out with `strata env --multi-prog` and starts a real PS
// program (slurmtest/psprog: servers hold the parameters and serve pulls
// and pushes over TCP) with srun --multi-prog. From the processes' own
// logs: P servers ran, each with the CPUs per task Slurm gave it and no
// GPU, and every worker exchanged with every server at every step.
func TestIntegrationPSJobGetsItsServers(t *testing.T) {
	cl, c := integration(t)
	dir := chrootDir(t)
	bin := buildPSBinaries(t, dir.host)
	const steps = 3
	port := 20000 + os.Getpid()%20000
	script := fmt.Sprintf(`#!/bin/bash
set -e
eval "$(%[1]s/strata env --multi-prog %[1]s/ps-$SLURM_JOB_ID.conf --ps-port %[2]d --worker '%[1]s/psprog -steps %[3]d')"
echo "tasks=$STRATA_TASKS workers=$STRATA_WORKERS ps=$STRATA_PS addrs=$STRATA_PS_ADDRS"
srun --distribution=block --multi-prog "$STRATA_MULTI_PROG"
`, bin, port, steps)
	if err := os.WriteFile(filepath.Join(dir.host, "ps.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const vgg = "--comment=strata: model=vgg16 batch=64 iters=100 "
	cases := []struct {
		name string
		args []string
		hint string
	}{
		// The planner chooses P for the 4 workers (smd: 1, 2 or 4).
		{"one node, ps=auto", []string{"--gres=gpu:1", "-c", "2", "--mem=4000"}, vgg + "gpus=4 arch=ps ps=auto"},
		{"two nodes, ps=2", []string{"--gres=gpu:4", "--nodes=2", "--ntasks-per-node=4", "-c", "2", "--mem=16000"},
			vgg + "gpus=8 arch=ps ps=2"},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir.chroot, fmt.Sprintf("out-%d.txt", k))
			args := append([]string{"-J", tag(t), "--begin=now+3600", "-o", out}, tc.args...)
			id := cl.Sbatch(t, append(args, tc.hint, filepath.Join(dir.chroot, "ps.sh"))...)
			ctx := context.Background()
			s, err := c.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			d := planSMD(t, s)[id]
			if d.Action != planner.ActionUpdate || d.PS < 1 || d.Tasks != d.Workers+d.PS || d.CPUsPerTask != 2 {
				t.Fatalf("decision %+v: want an update with servers written as W+P tasks of 2 CPUs", d)
			}
			vs := decide.Plan(planner.Plan{Decisions: []planner.Decision{d}}, map[int64]*planner.Job{id: jobOf(s, id)},
				nil, nil, s.Now, decide.Defaults())
			if !vs[0].Write || !vs[0].Resizes() {
				t.Fatalf("guard verdict %+v: want a resize written", vs[0])
			}
			rep, err := c.Apply(ctx, []planner.Decision{vs[0].Send}, slurm.ApplyOptions{Cycle: 24, Nodes: s.Nodes})
			if err != nil || rep.Results[0].Outcome != decide.Applied {
				t.Fatalf("apply: %v %+v", err, rep.Results)
			}
			kv := cl.ShowJob(t, id)
			if kv["NumTasks"] != strconv.Itoa(d.Tasks) || kv["CPUs/Task"] != "2" ||
				!strings.HasPrefix(kv["NtasksPerN:B:S:C"], strconv.Itoa(d.TasksPerNode)+":") {
				t.Fatalf("Slurm's record NumTasks=%s CPUs/Task=%s NtasksPerN=%s, want %d tasks, %d per node, 2 CPUs each",
					kv["NumTasks"], kv["CPUs/Task"], kv["NtasksPerN:B:S:C"], d.Tasks, d.TasksPerNode)
			}
			cl.MustExec(t, "scontrol", "update", "jobid="+strconv.FormatInt(id, 10), "StartTime=now")
			st := cl.WaitState(t, id, "COMPLETED", 120*time.Second)
			log, _ := os.ReadFile(filepath.Join(dir.host, fmt.Sprintf("out-%d.txt", k)))
			if st != "COMPLETED" {
				t.Fatalf("job %d ended %s; its output:\n%s", id, st, log)
			}
			checkPSLog(t, string(log), d.Workers, d.PS, steps)
			for _, l := range regexp.MustCompile(`(?m)^(tasks=.*|server \d+ start.*|worker \d+ start.*)$`).FindAllString(string(log), -1) {
				t.Log(l)
			}
			kv = cl.ShowJob(t, id)
			t.Logf("job %d: %d workers + %d servers as %d tasks (%d per node, 2 CPUs each, %d MB per node) ran on %s (NumCPUs=%s)",
				id, d.Workers, d.PS, d.Tasks, d.TasksPerNode, d.MemoryPerNodeMB, kv["NodeList"], kv["NumCPUs"])
		})
	}
}

// checkPSLog asserts from the PS program's own log lines that ps servers
// started with 2 CPUs per task and no GPU, each served pushes from every
// worker at every step, and every worker exchanged with every server.
func checkPSLog(t *testing.T, log string, workers, ps, steps int) {
	t.Helper()
	started := regexp.MustCompile(`(?m)^server (\d+) start node=(\S+) port=\d+ cpus_per_task=(\d+) cpus_visible=\d+ gpus="([^"]*)"`).FindAllStringSubmatch(log, -1)
	if len(started) != ps {
		t.Errorf("%d servers started, want %d:\n%s", len(started), ps, log)
	}
	for _, m := range started {
		if m[3] != "2" || m[4] != "" {
			t.Errorf("server %s on %s: cpus_per_task=%s gpus=%q, want 2 CPUs and no GPU", m[1], m[2], m[3], m[4])
		}
	}
	gpus := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^worker (\d+) start node=(\S+) gpu="([^"]*)"`).FindAllStringSubmatch(log, -1) {
		if strings.Contains(m[3], ",") || m[3] == "" || gpus[m[2]+"/"+m[3]] {
			t.Errorf("worker %s on %s has GPUs %q: want one of its node's, its own", m[1], m[2], m[3])
		}
		gpus[m[2]+"/"+m[3]] = true
	}
	if len(gpus) != workers {
		t.Errorf("%d workers with a GPU of their own, want %d", len(gpus), workers)
	}
	for w := range workers {
		for s := range ps {
			for step := 1; step <= steps; step++ {
				if !strings.Contains(log, fmt.Sprintf("worker %d step %d exchanged with server %d at", w, step, s)) {
					t.Errorf("worker %d did not exchange with server %d at step %d", w, s, step)
				}
				if !strings.Contains(log, fmt.Sprintf("server %d push from worker %d step %d\n", s, w, step)) {
					t.Errorf("server %d logged no push from worker %d at step %d", s, w, step)
				}
			}
		}
		if !strings.Contains(log, fmt.Sprintf("worker %d done\n", w)) {
			t.Errorf("worker %d did not finish", w)
		}
	}
	if n := strings.Count(log, " done norm="); n != ps {
		t.Errorf("%d servers finished, want %d", n, ps)
	}
}

func jobOf(s *planner.Snapshot, id int64) *planner.Job {
	for i := range s.Jobs {
		if s.Jobs[i].ID == id {
			return &s.Jobs[i]
		}
	}
	return nil
}

// psDir is a directory seen from the host and, as chroot, from the jobs.
type psDir struct{ host, chroot string }

// chrootDir makes a directory of the test inside the test cluster's chroot
// (SLURM_TEST_DIR/root), where the jobs' processes run.
func chrootDir(t *testing.T) psDir {
	t.Helper()
	root := os.Getenv("SLURM_TEST_DIR")
	if root == "" {
		t.Fatal("SLURM_TEST_DIR is unset: source the test bed's env file (docs/development.md, The test bed)")
	}
	rel := fmt.Sprintf("/tmp/strata-ps-%d", os.Getpid())
	d := psDir{host: filepath.Join(root, "root", rel), chroot: rel}
	if err := os.MkdirAll(d.host, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d.host) })
	return d
}

// buildPSBinaries builds strata and psprog (static, for the chroot's
// Debian) into dir and returns their directory as the jobs see it.
func buildPSBinaries(t *testing.T, dir string) string {
	t.Helper()
	for pkg, name := range map[string]string{"../cmd/strata": "strata", "./slurmtest/psprog": "psprog"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return "/tmp/strata-ps-" + strconv.Itoa(os.Getpid())
}
