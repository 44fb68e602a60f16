// Package slurmtest gives tests a real Slurm test cluster (the one of
// scripts/slurm-test-cluster.sh) and a recorded-JSON slurmrestd stand-in for
// unit tests of parsing and error paths.
package slurmtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/slurm"
)

// Cluster is the real Slurm test cluster as seen by one test.
type Cluster struct {
	// Config reaches slurmrestd as root (SLURM_USER_NAME/SLURM_JWT).
	Config slurm.Config
	script string
	// dir is the instance's directory (SLURM_TEST_DIR) for Exec and
	// Token; "" = the environment's.
	dir string
	// Operator is a user with adminlevel=operator ("" without accounting).
	Operator string
}

// Connect returns the test cluster named by SLURM_REST_URL, SLURM_USER_NAME,
// SLURM_JWT and SLURM_TEST_DIR (make test sources them from its own test
// bed). Without them it fails the test with how to get a bed: it never starts
// or restarts a cluster itself, so it cannot disturb one that another run,
// a demo or a developer is using.
func Connect(t testing.TB) *Cluster {
	t.Helper()
	script, err := scriptPath()
	if err != nil {
		t.Fatalf("slurmtest: %v", err)
	}
	c := &Cluster{script: script}
	env := map[string]string{}
	for _, k := range []string{"SLURM_REST_URL", "SLURM_USER_NAME", "SLURM_JWT"} {
		env[k] = os.Getenv(k)
	}
	if env["SLURM_REST_URL"] == "" || env["SLURM_JWT"] == "" {
		t.Fatalf("slurmtest: SLURM_REST_URL/SLURM_JWT are unset: run `make test`, or start a test bed " +
			"of your own (`STRATA_TESTBED=mine scripts/testbed.sh up`, as root) and source the env file it " +
			"names (`set -a; . $(STRATA_TESTBED=mine scripts/testbed.sh env); set +a`); or use go test -short")
	}
	c.Config = slurm.Config{URL: env["SLURM_REST_URL"], User: env["SLURM_USER_NAME"],
		Token: slurm.Secret(env["SLURM_JWT"]), Timeout: 10 * time.Second, Retries: 2,
		RetryBackoff: 200 * time.Millisecond}
	if c.Config.User == "" {
		c.Config.User = "root"
	}
	return c
}

// scriptPath finds scripts/slurm-test-cluster.sh from STRATA_REPO_ROOT or
// by walking up from the working directory to go.mod.
func scriptPath() (string, error) {
	root := os.Getenv("STRATA_REPO_ROOT")
	if root == "" {
		dir, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				break
			}
			if dir == filepath.Dir(dir) {
				return "", errors.New("no go.mod above the working directory; set STRATA_REPO_ROOT")
			}
		}
	}
	p := filepath.Join(root, "scripts", "slurm-test-cluster.sh")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("test cluster script: %w", err)
	}
	return p, nil
}

// Exec runs a command inside the cluster's chroot (sbatch, scontrol, ...)
// and returns its combined output.
//
// SLURM_JWT is removed from the command's environment: with it, Slurm's
// client commands authenticate as the token's user (root), so a job
// submitted through runuser would belong to root instead of the plain user.
func (c *Cluster) Exec(args ...string) (string, error) {
	return c.run(append([]string{"exec"}, args...)...)
}

func (c *Cluster) run(args ...string) (string, error) {
	cmd := exec.Command(c.script, args...)
	cmd.Env = c.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%v: %w: %s", args, err, out)
	}
	return string(out), nil
}

// env is the environment of the cluster script: without SLURM_JWT, with
// the instance's SLURM_TEST_DIR.
func (c *Cluster) env() []string {
	env := withoutJWT(os.Environ())
	if c.dir != "" {
		env = append(env, "SLURM_TEST_DIR="+c.dir)
	}
	return env
}

func withoutJWT(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SLURM_JWT=") {
			out = append(out, kv)
		}
	}
	return out
}

// MustExec is Exec that fails the test on error.
func (c *Cluster) MustExec(t testing.TB, args ...string) string {
	t.Helper()
	out, err := c.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var submitted = regexp.MustCompile(`Submitted batch job (\d+)`)

// Sbatch submits a job (args as for sbatch, e.g. "--gres=gpu:2",
// "--wrap=sleep 60") and cancels it when the test ends.
func (c *Cluster) Sbatch(t testing.TB, args ...string) int64 {
	t.Helper()
	return c.SbatchAs(t, "", args...)
}

// SbatchAs is Sbatch as a plain user of the chroot ("" = root).
func (c *Cluster) SbatchAs(t testing.TB, user string, args ...string) int64 {
	t.Helper()
	cmd := append([]string{"sbatch"}, args...)
	if user != "" {
		cmd = append([]string{"runuser", "-u", user, "--"}, cmd...)
	}
	out := c.MustExec(t, cmd...)
	m := submitted.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("sbatch %v: no job id in %q", args, out)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	t.Cleanup(func() { _, _ = c.Exec("scancel", m[1]) })
	return id
}

// ShowJob returns `scontrol show job ID` as key=value pairs.
func (c *Cluster) ShowJob(t testing.TB, id int64) map[string]string {
	t.Helper()
	out := c.MustExec(t, "scontrol", "show", "job", "-o", strconv.FormatInt(id, 10))
	return parseScontrol(out)
}

// parseScontrol splits one-line scontrol output; values run to the next
// " Key=" (keys start upper case), so that comments with spaces and
// lower-case key=value pairs stay whole.
func parseScontrol(out string) map[string]string {
	kv := map[string]string{}
	keyAt := regexp.MustCompile(`(?:^|\s)([A-Z][A-Za-z:/]*)=`)
	line := strings.TrimSpace(out)
	idx := keyAt.FindAllStringSubmatchIndex(line, -1)
	for i, m := range idx {
		end := len(line)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		kv[line[m[2]:m[3]]] = strings.TrimSpace(line[m[1]:end])
	}
	return kv
}

// WaitState polls until job id is in state (scontrol's JobState) or the
// timeout passes, and returns the last state seen.
func (c *Cluster) WaitState(t testing.TB, id int64, state string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := c.ShowJob(t, id)["JobState"]
		if got == state || time.Now().After(deadline) {
			return got
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// Token returns a fresh JWT for a user of the chroot (e.g. "alice").
func (c *Cluster) Token(t testing.TB, user string) slurm.Secret {
	t.Helper()
	cmd := exec.Command(c.script, "token")
	cmd.Env = append(c.env(), "SLURM_TEST_USER="+user)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token for %s: %v", user, err)
	}
	tok := strings.TrimSpace(string(out))
	if v, ok := strings.CutPrefix(tok, "SLURM_JWT="); ok {
		tok = v
	}
	return slurm.Secret(tok)
}

// Command writes an executable that runs the Slurm command name (e.g.
// "scontrol") inside the cluster's chroot with its arguments, for code
// that runs Slurm's client commands itself, and returns its path.
func (c *Cluster) Command(t testing.TB, name string) string {
	t.Helper()
	env := ""
	if c.dir != "" {
		env = "SLURM_TEST_DIR='" + c.dir + "' "
	}
	path := filepath.Join(t.TempDir(), name)
	body := "#!/bin/sh\nunset SLURM_JWT\n" + env + "exec '" + c.script + "' exec " + name + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return path
}
