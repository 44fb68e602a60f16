// Package scripts_test proves that the test bed the scripts in this folder
// start is real: a Slurm 24.11 cluster answering slurmrestd with JWT, and a
// throwaway PostgreSQL server. Every later integration test stands on it.
package scripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// bed returns the test-bed environment make test sources; without it the
// test fails with how to get one (it never touches a bed it did not start).
func bed(t *testing.T) map[string]string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration: needs the Slurm + Postgres test bed (make test)")
	}
	keys := []string{"STRATA_TEST_DATABASE", "SLURM_REST_URL", "SLURM_USER_NAME", "SLURM_JWT"}
	env := map[string]string{}
	for _, k := range keys {
		env[k] = os.Getenv(k)
	}
	if env["SLURM_JWT"] != "" && env["STRATA_TEST_DATABASE"] != "" {
		if env["SLURM_TEST_DIR"] = os.Getenv("SLURM_TEST_DIR"); env["SLURM_TEST_DIR"] == "" {
			env["SLURM_TEST_DIR"] = "/var/cache/strata-test/slurm"
		}
		return env
	}
	t.Fatalf("no test bed in the environment: run `make test`, or `STRATA_TESTBED=mine scripts/testbed.sh up` " +
		"(as root) and source the env file `STRATA_TESTBED=mine scripts/testbed.sh env` names; this test never " +
		"starts or restarts a bed itself")
	return nil
}

// inCluster runs a Slurm command inside the test cluster's chroot.
func inCluster(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command("./slurm-test-cluster.sh", append([]string{"exec"}, args...)...)
	cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+env["SLURM_TEST_DIR"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sbatch submits a job and returns its id; the job is cancelled at cleanup.
func sbatch(t *testing.T, env map[string]string, args ...string) int {
	t.Helper()
	out := inCluster(t, env, append([]string{"sbatch", "--parsable"}, args...)...)
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

// restJob is the part of slurmrestd's v0.0.42 job object these tests read.
type restJob struct {
	JobID       int      `json:"job_id"`
	Name        string   `json:"name"`
	JobState    []string `json:"job_state"`
	StateReason string   `json:"state_reason"`
	TresPerNode string   `json:"tres_per_node"`
	Comment     string   `json:"comment"`
}

// getJob reads one job through slurmrestd over HTTP with the JWT.
func getJob(t *testing.T, env map[string]string, id int) restJob {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("%s/slurm/v0.0.42/job/%d", env["SLURM_REST_URL"], id), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-SLURM-USER-NAME", env["SLURM_USER_NAME"])
	req.Header.Set("X-SLURM-USER-TOKEN", env["SLURM_JWT"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET job %d from slurmrestd: %v", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET job %d: HTTP %s", id, resp.Status)
	}
	var body struct {
		Jobs   []restJob         `json:"jobs"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("decode job %d: %v", id, err)
	}
	if len(body.Jobs) != 1 || len(body.Errors) > 0 {
		t.Fatalf("GET job %d: %d jobs, errors %s", id, len(body.Jobs), body.Errors)
	}
	return body.Jobs[0]
}

// waitState polls until the job is in one of the states or the deadline passes.
func waitState(t *testing.T, env map[string]string, id int, states ...string) restJob {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j := getJob(t, env, id)
		for _, s := range states {
			if len(j.JobState) > 0 && j.JobState[0] == s {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %v (%s), want one of %v", id, j.JobState, j.StateReason, states)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func TestSlurmJobsReadBackOverREST(t *testing.T) {
	env := bed(t)
	name := fmt.Sprintf("bed-%d", time.Now().UnixNano())
	id := sbatch(t, env, "--gres=gpu:2", "--job-name="+name,
		"--comment=strata: model=resnet50 gpus=1-4", "--wrap=sleep 30")

	got := waitState(t, env, id, "RUNNING", "PENDING")
	want := restJob{JobID: id, Name: name, JobState: got.JobState, StateReason: got.StateReason,
		TresPerNode: "gres/gpu:2", Comment: "strata: model=resnet50 gpus=1-4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("job read back through slurmrestd (-want +got):\n%s", diff)
	}
}

func TestSlurmJobAskingTooManyGPUsStaysPending(t *testing.T) {
	env := bed(t)
	// The cluster has 2 nodes × 4 GPUs. A 1-GPU job holds one of them, so a
	// job asking for all 8 can never start while it runs: it must pend.
	blocker := sbatch(t, env, "--gres=gpu:1", "--job-name=bed-blocker", "--wrap=sleep 120")
	waitState(t, env, blocker, "RUNNING")
	id := sbatch(t, env, "--gpus-per-node=4", "--nodes=2", "--job-name=bed-all-gpus", "--wrap=sleep 5")
	time.Sleep(3 * time.Second) // a few scheduling passes
	j := getJob(t, env, id)
	if len(j.JobState) == 0 || j.JobState[0] != "PENDING" {
		t.Fatalf("job %d asking 8 GPUs while 1 is taken is %v, want PENDING", id, j.JobState)
	}
	switch j.StateReason {
	case "Resources", "Priority", "None": // waiting, as expected
	default:
		t.Errorf("state_reason = %q, want Resources, Priority or None", j.StateReason)
	}
}

func TestSlurmRefusesMoreGPUsThanAnyNodeHas(t *testing.T) {
	env := bed(t)
	// More GPUs than the whole cluster has: sbatch refuses at submission
	// (only an update through REST can create such a job; the planner
	// therefore checks node shapes itself).
	cmd := exec.Command("./slurm-test-cluster.sh", "exec", "sbatch", "--gres=gpu:9", "--wrap=sleep 5")
	cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+env["SLURM_TEST_DIR"])
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("sbatch --gres=gpu:9 was accepted: %s", out)
	}
	if !strings.Contains(string(out), "Requested node configuration is not available") {
		t.Errorf("sbatch error = %q, want Slurm's node-configuration message", out)
	}
}

func TestSlurmRESTRejectsBadToken(t *testing.T) {
	env := bed(t)
	req, _ := http.NewRequest(http.MethodGet, env["SLURM_REST_URL"]+"/slurm/v0.0.42/jobs", nil)
	req.Header.Set("X-SLURM-USER-NAME", env["SLURM_USER_NAME"])
	req.Header.Set("X-SLURM-USER-TOKEN", "not-a-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("slurmrestd accepted a bogus token (HTTP %s)", resp.Status)
	}
}

func TestPostgresRoundTrip(t *testing.T) {
	env := bed(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env["STRATA_TEST_DATABASE"])
	if err != nil {
		t.Fatalf("connect to the throwaway Postgres: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE bed_rt (id int PRIMARY KEY, gpu text, joules double precision)`); err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int32(1), "GPU-aaaa", 1.5}, {int32(2), "GPU-bbbb", 2.25}}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"bed_rt"}, []string{"id", "gpu", "joules"}, pgx.CopyFromRows(want)); err != nil {
		t.Fatal(err)
	}
	rows, _ := conn.Query(ctx, `SELECT id, gpu, joules FROM bed_rt ORDER BY id`)
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestPGScriptLifecycle checks pg-test.sh itself: a second server on its own
// port, idempotent up, stop/start keeping data, and down removing everything.
func TestPGScriptLifecycle(t *testing.T) {
	bed(t)
	// The server runs as an unprivileged user, who must be able to reach
	// DIR: t.TempDir's parents are private, so make a searchable one.
	tmp, err := os.MkdirTemp("", "strata-pg-lifecycle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "pg")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("./pg-test.sh", append(args, dir)...).CombinedOutput(); err != nil {
			t.Fatalf("pg-test.sh %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { _ = exec.Command("./pg-test.sh", "down", dir).Run() })
	run("up")
	run("up") // idempotent
	raw, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	var url string
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "STRATA_TEST_DATABASE="); ok {
			url = v
		}
	}
	if !strings.HasPrefix(url, "postgres://strata@127.0.0.1:") {
		t.Fatalf("env file database URL %q, want a 127.0.0.1 URL", url)
	}
	ctx := context.Background()
	exec1 := func(sql string) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, sql)
		return err
	}
	if err := exec1(`CREATE TABLE keep (x int); INSERT INTO keep VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	run("stop")
	if err := exec1(`SELECT 1`); err == nil {
		t.Fatal("server still answers after stop")
	}
	run("start")
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("after start: %v", err)
	}
	var x int
	err = c.QueryRow(ctx, `SELECT x FROM keep`).Scan(&x)
	c.Close(ctx)
	if err != nil || x != 42 {
		t.Fatalf("data after stop/start: x=%d err=%v", x, err)
	}
	run("down")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("down left %s behind (stat err %v)", dir, err)
	}
}

// TestSlurmBedMovesOffATakenPort (issue 34): a bed's ports are kept between
// its ups; when another process took one meanwhile (another bed brought up
// while this one was down), up moves to a free port instead of failing
// with "Address already in use". The bed is one of its own, in a temporary
// folder, destroyed at the end.
func TestSlurmBedMovesOffATakenPort(t *testing.T) {
	bed(t)
	dir, err := os.MkdirTemp("/var/cache/strata-test", "ports-")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		// A bed that cannot bind its port was seen to hang in up: bounded,
		// so that the test fails and its cleanup destroys the bed.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "./slurm-test-cluster.sh", args...)
		cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+dir, "SLURM_TEST_NODES=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("slurm-test-cluster.sh %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		cmd := exec.Command("./slurm-test-cluster.sh", "destroy")
		cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+dir)
		_ = cmd.Run()
	})
	restPort := func() string {
		raw, err := os.ReadFile(filepath.Join(dir, "ports"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(l, "rest="); ok {
				return v
			}
		}
		t.Fatalf("no rest= in %s/ports: %q", dir, raw)
		return ""
	}
	run("up")
	first := restPort()
	run("down")
	l, err := net.Listen("tcp", "127.0.0.1:"+first) // someone else takes it
	if err != nil {
		t.Fatalf("take port %s: %v", first, err)
	}
	defer l.Close()
	out := run("up")
	if second := restPort(); second == first {
		t.Fatalf("up kept the taken port %s:\n%s", first, out)
	}
	if !strings.Contains(out, "moved: rest:"+first) {
		t.Errorf("up did not say it moved off %s:\n%s", first, out)
	}
	env, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil || !strings.Contains(string(env), "127.0.0.1:"+restPort()) {
		t.Errorf("env file %q (%v): want the new REST port %s", env, err, restPort())
	}
}
