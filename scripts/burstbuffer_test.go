package scripts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bbPool reads the test cluster's pool "nvme" from `scontrol show burst`:
// its capacity and the space in use, in GiB.
func bbPool(t *testing.T, env map[string]string) (total, used int64) {
	t.Helper()
	out := inCluster(t, env, "scontrol", "show", "burst")
	m := regexp.MustCompile(`PoolName\[\d+\]=nvme .*TotalSpace=(\S+) .*UsedSpace=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no pool nvme in `scontrol show burst`:\n%s", out)
	}
	return gibOf(t, m[1]), gibOf(t, m[2])
}

// gibOf reads a size as scontrol prints it ("0", "600GiB", "1TiB") in GiB.
func gibOf(t *testing.T, s string) int64 {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)(MiB|GiB|TiB|PiB)?$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("size %q from scontrol show burst", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	switch m[2] {
	case "MiB":
		return n >> 10
	case "TiB":
		return n << 10
	case "PiB":
		return n << 20
	}
	return n // GiB, or a bare 0
}

// bbSubmit submits, as alice (burst_buffer/lua refuses root), a 1-GPU job
// whose script asks for gib GiB of the pool and sleeps secs; it is
// cancelled at cleanup.
func bbSubmit(t *testing.T, env map[string]string, name string, gib int64, secs int) int {
	t.Helper()
	script := fmt.Sprintf("#!/bin/bash\n#BB_LUA pool=nvme capacity=%dG\nsleep %d\n", gib, secs)
	path := filepath.Join(env["SLURM_TEST_DIR"], "root", "tmp", name+".sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	out := inCluster(t, env, "runuser", "-u", "alice", "--", "sbatch", "--parsable", "--gres=gpu:1",
		"--job-name="+name, "-D", "/tmp", "/tmp/"+name+".sh")
	id, err := strconv.Atoi(strings.TrimSpace(strings.Split(out, ";")[0]))
	if err != nil {
		t.Fatalf("sbatch output %q: %v", out, err)
	}
	t.Cleanup(func() { inCluster(t, env, "scancel", strconv.Itoa(id)) })
	return id
}

// Two jobs whose burst-buffer requests do not fit the pool together (60 %
// of it each) and whose GPUs do: Slurm runs them one after the other, the
// second waiting with BurstBufferResources while the first holds its space,
// and the pool's use never exceeds its capacity. With the tracking site
// script (SLURM_TEST_BB=tracking) its own record of the allocations is
// checked too; with the default stub, Slurm's accounting alone.
func TestBurstBufferPoolNotOverCommitted(t *testing.T) {
	env := bed(t)
	total, _ := bbPool(t, env)
	each := total * 6 / 10
	name := fmt.Sprintf("bb-%d", time.Now().UnixNano())
	a := bbSubmit(t, env, name+"-a", each, 10)
	b := bbSubmit(t, env, name+"-b", each, 1)
	state := filepath.Join(env["SLURM_TEST_DIR"], "root", "var", "spool", "slurm", "bb", "state")
	deadline := time.Now().Add(120 * time.Second)
	sawWait := false
	for {
		ja, jb := getJob(t, env, a), getJob(t, env, b)
		if _, used := bbPool(t, env); used > total {
			t.Fatalf("pool nvme: %d GiB in use of %d", used, total)
		}
		if held := trackedGiB(t, state); held > total {
			t.Fatalf("the site script holds %d GiB of %d", held, total)
		}
		sa, sb := ja.JobState[0], jb.JobState[0]
		if sa == "RUNNING" && sb == "RUNNING" {
			t.Fatalf("jobs %d and %d run together although their burst buffers (%d GiB each) exceed the pool (%d GiB)", a, b, each, total)
		}
		if sa == "RUNNING" && sb == "PENDING" && jb.StateReason == "BurstBufferResources" {
			sawWait = true
		}
		if sb == "RUNNING" || sb == "COMPLETED" {
			if sa != "COMPLETED" {
				t.Fatalf("job %d started before job %d ended (%s)", b, a, sa)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s (%s), job %d %s (%s) after 120 s", a, sa, ja.StateReason, b, sb, jb.StateReason)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !sawWait {
		t.Errorf("job %d never waited with reason BurstBufferResources while job %d ran", b, a)
	}
}

// trackedGiB sums the tracking site script's allocations (0 without it).
func trackedGiB(t *testing.T, state string) int64 {
	t.Helper()
	data, err := os.ReadFile(state)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line) // JOBID BYTES
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", state, line, err)
		}
		sum += n
	}
	return sum >> 30
}

// The contract behind ranking a job that lacks only burst-buffer space
// among the starts (docs/planner.md § Burst buffers in time): a job waiting
// with BurstBufferResources at the top of the priority order does not keep
// a lower-priority job that fits from starting, and gets the space once it
// frees. Priorities are set as Strata writes them (scontrol update).
func TestBurstBufferWaitingJobDoesNotBlockTheQueue(t *testing.T) {
	env := bed(t)
	total, _ := bbPool(t, env)
	name := fmt.Sprintf("bbq-%d", time.Now().UnixNano())
	a := bbSubmit(t, env, name+"-a", total*6/10, 15) // holds the space
	waitFor(t, env, a, "RUNNING", 60*time.Second)
	b := bbSubmit(t, env, name+"-b", total*6/10, 1) // lacks only space
	c := bbSubmit(t, env, name+"-c", total/10, 1)   // fits now
	inCluster(t, env, "scontrol", "update", fmt.Sprintf("jobid=%d", b), "priority=200000")
	inCluster(t, env, "scontrol", "update", fmt.Sprintf("jobid=%d", c), "priority=100000")
	deadline := time.Now().Add(120 * time.Second)
	cRanWhileBWaited, bAfterA := false, false
	for !bAfterA {
		ja, jb, jc := getJob(t, env, a), getJob(t, env, b), getJob(t, env, c)
		sa, sb, sc := ja.JobState[0], jb.JobState[0], jc.JobState[0]
		if (sc == "RUNNING" || sc == "COMPLETED") && sb == "PENDING" {
			cRanWhileBWaited = true
		}
		if sb == "RUNNING" || sb == "COMPLETED" {
			if sa != "COMPLETED" {
				t.Fatalf("job %d started before job %d ended (%s): the pool was over-committed", b, a, sa)
			}
			bAfterA = true
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 120 s: job %d %s, job %d %s (%s), job %d %s (%s)", a, sa, b, sb, jb.StateReason, c, sc, jc.StateReason)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !cRanWhileBWaited {
		t.Errorf("job %d (fits, priority 100000) did not start while job %d (priority 200000) waited for burst-buffer space", c, b)
	}
}

// waitFor polls job id until it is in state, failing after limit.
func waitFor(t *testing.T, env map[string]string, id int, state string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		j := getJob(t, env, id)
		if j.JobState[0] == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %v (%s) after %v, want %s", id, j.JobState, j.StateReason, limit, state)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
