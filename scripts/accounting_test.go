package scripts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// acctBed is the test cluster with accounting (SLURM_TEST_ACCOUNTING=1):
// the companion make test starts (SLURM_ACCT_TEST_DIR), else the bed's own
// cluster when it has accounting; without either the test fails with how
// to get one.
func acctBed(t *testing.T) map[string]string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster with accounting (make test)")
	}
	if d := os.Getenv("SLURM_ACCT_TEST_DIR"); d != "" {
		return map[string]string{"SLURM_TEST_DIR": d}
	}
	if os.Getenv("SLURM_ACCOUNTING") == "1" && os.Getenv("SLURM_TEST_DIR") != "" {
		return map[string]string{"SLURM_TEST_DIR": os.Getenv("SLURM_TEST_DIR")}
	}
	t.Fatalf("no Slurm test cluster with accounting in the environment: run `make test`, or " +
		"`STRATA_TESTBED=mine SLURM_TEST_ACCOUNTING=1 scripts/testbed.sh up` (as root) and source its env file")
	return nil
}

// TestAccountingBedIsReal: slurmdbd stores the accounting, the users and
// QOS are registered, and Slurm enforces who may change what.
func TestAccountingBedIsReal(t *testing.T) {
	env := acctBed(t)
	conf := map[string]string{}
	for _, line := range strings.Split(inCluster(t, env, "scontrol", "show", "config"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			conf[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	got := map[string]string{}
	for _, k := range []string{"AccountingStorageType", "AccountingStorageEnforce", "PriorityType", "PriorityWeightFairShare", "PriorityWeightQOS"} {
		got[k] = conf[k]
	}
	want := map[string]string{"AccountingStorageType": "accounting_storage/slurmdbd",
		"AccountingStorageEnforce": "associations,limits,qos", "PriorityType": "priority/multifactor",
		"PriorityWeightFairShare": "10000", "PriorityWeightQOS": "10000"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slurm.conf (-want +got):\n%s", diff)
	}
	users := inCluster(t, env, "sacctmgr", "-n", "-P", "list", "user", "format=user,defaultaccount,adminlevel")
	if diff := cmp.Diff("alice|research|None\nbob|research|None\nroot|research|Administrator\nstrata|research|Operator",
		strings.TrimSpace(users)); diff != "" {
		t.Errorf("sacctmgr users (-want +got):\n%s", diff)
	}
	qos := inCluster(t, env, "sacctmgr", "-n", "-P", "list", "qos", "format=name,priority")
	if diff := cmp.Diff("normal|0\nhigh|1000", strings.TrimSpace(qos)); diff != "" {
		t.Errorf("sacctmgr qos (-want +got):\n%s", diff)
	}

	id := strconv.Itoa(sbatchAs(t, env, "alice", "--chdir=/tmp", "-o", "/dev/null", "--begin=now+3600", "--wrap=sleep 5"))
	for _, tc := range []struct {
		user, set string
		ok        bool
	}{
		{"alice", "priority=5", false},         // plain users may not set priorities
		{"alice", "qos=high", true},            // but may pick a QOS they are allowed
		{"bob", "qos=normal", false},           // not on another user's job
		{"strata", "priority=424242", true},    // an operator may
		{"strata", "admincomment=x", false},    // but not write admin comments (root and SlurmUser only)
		{"root", "admincomment=strata:", true}, // root may
	} {
		t.Run(tc.user+" "+tc.set, func(t *testing.T) {
			cmd := exec.Command("./slurm-test-cluster.sh", "exec", "runuser", "-u", tc.user, "--", "scontrol", "update", "job="+id, tc.set)
			cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+env["SLURM_TEST_DIR"])
			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.ok {
				t.Errorf("scontrol update %s as %s: err %v, want ok=%v\n%s", tc.set, tc.user, err, tc.ok, out)
			}
		})
	}
	show := inCluster(t, env, "scontrol", "show", "job", "-o", id)
	for _, s := range []string{"QOS=high", "Priority=424242"} {
		if !strings.Contains(show, s) {
			t.Errorf("job %s lacks %s:\n%s", id, s, show)
		}
	}
}

// sbatchAs submits a job as a plain user; it is cancelled at cleanup.
func sbatchAs(t *testing.T, env map[string]string, user string, args ...string) int {
	t.Helper()
	out := inCluster(t, env, append([]string{"runuser", "-u", user, "--", "sbatch", "--parsable"}, args...)...)
	id, err := strconv.Atoi(strings.TrimSpace(strings.Split(out, ";")[0]))
	if err != nil {
		t.Fatalf("sbatch output %q: %v", out, err)
	}
	t.Cleanup(func() {
		cmd := exec.Command("./slurm-test-cluster.sh", "exec", "scancel", strconv.Itoa(id))
		cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+env["SLURM_TEST_DIR"])
		_ = cmd.Run()
	})
	return id
}

// TestAccountingClusterLifecycle starts a one-node cluster with accounting
// of its own (a run-PID-acct directory, reaped by testbed.sh if this test
// dies), then checks that `down` leaves no process in its chroot (mariadbd
// and slurmdbd included) and no mount.
func TestAccountingClusterLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: starts a Slurm test cluster (root)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("starts a Slurm test cluster of its own: needs root (make test runs as root)")
	}
	dir := fmt.Sprintf("/var/cache/strata-test/run-%d-acct", os.Getpid())
	script := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("./slurm-test-cluster.sh", args...)
		cmd.Env = append(os.Environ(), "SLURM_TEST_ACCOUNTING=1", "SLURM_TEST_NODES=1", "SLURM_TEST_DIR="+dir, "SLURM_TEST_CONF_EXTRA=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("slurm-test-cluster.sh %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command("./slurm-test-cluster.sh", "destroy", dir).Run() })
	script("up", dir)
	status := script("status", dir)
	for _, d := range []string{"mariadbd", "slurmdbd", "slurmctld", "slurmrestd -s openapi/slurmctld,openapi/slurmdbd"} {
		if !strings.Contains(status, d) {
			t.Errorf("after up, status lacks %s:\n%s", d, status)
		}
	}
	script("down", dir)
	root := filepath.Join(dir, "root")
	var left []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if r, err := os.Readlink(p + "/root"); err == nil && r == root {
			cmdline, _ := os.ReadFile(p + "/cmdline")
			left = append(left, p+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(m); len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			left = append(left, "mount "+f[1])
		}
	}
	if diff := cmp.Diff([]string(nil), left); diff != "" {
		t.Errorf("left after down (-want +got):\n%s", diff)
	}
}
