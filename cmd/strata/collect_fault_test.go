package main

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
)

// The collector is killed with SIGKILL three times during a replay of the
// demo recording (issue 23.4), once while Postgres is read-only and the
// spool is being written; a last run replays it to the end. Every job's
// GPU-hours and energy then equal the recording's truth within 0.5 %: a
// kill costs nothing that the next start does not recover (the spool is
// drained first, holdings are resumed and never opened twice).
func TestFaultCollectorSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres, the built binary)")
	}
	ctx := context.Background()
	url := dbtest.URL(t)
	dbtest.Open(t, url, true)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := strings.TrimPrefix(admin.Config().Database, "/")
	readOnly := func(on bool) {
		set := "RESET default_transaction_read_only"
		if on {
			set = "SET default_transaction_read_only = on"
		}
		for _, q := range []string{"ALTER DATABASE " + pgx.Identifier{name}.Sanitize() + " " + set,
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()"} {
			var args []any
			if strings.HasPrefix(q, "SELECT") {
				args = []any{name}
			}
			if _, err := admin.Exec(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	bin := buildStrata(t)
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	collect := func(speed string) *exec.Cmd {
		c := exec.Command(bin, "--log-level", "info", "collect", "--source", "replay",
			"--replay-file", "../../dcgm/testdata/recording.jsonl", "--schedule", "../../dcgm/testdata/schedule.json",
			"--replay-speed", speed, "--batch-samples", "8", "--spool-file", spool, "--metrics-listen", "")
		c.Env = append(os.Environ(), "STRATA_DATABASE_URL="+url)
		return c
	}
	r := rand.New(rand.NewPCG(23, 4))
	for k := range 3 {
		var logs bytes.Buffer
		c := collect("60") // the 6-minute recording in 6 s
		c.Stdout, c.Stderr = &logs, &logs
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(500+r.IntN(4000)) * time.Millisecond
		if k == 1 { // killed while the spool is being written
			time.Sleep(after / 2)
			readOnly(true)
			time.Sleep(after / 2)
		} else {
			time.Sleep(after)
		}
		if err := c.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		c.Wait()
		if k == 1 {
			readOnly(false)
		}
		t.Logf("run %d: SIGKILL after %v, %d log lines", k+1, after, strings.Count(logs.String(), "\n"))
	}
	out, err := collect("0").CombinedOutput()
	if err != nil {
		t.Fatalf("last run: %v\n%s", err, out)
	}
	t.Logf("last run: %s", lastLine(string(out), "collect finished"))
	sched, err := dcgm.ReadSchedule("../../dcgm/testdata/schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Open(ctx, db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	worstH, worstE := 0.0, 0.0
	for _, j := range sched.Jobs {
		got, err := st.JobEnergyTotal(ctx, j.Job)
		if err != nil {
			t.Fatalf("job %d: %v", j.Job, err)
		}
		gpus := 0
		for _, a := range j.Allocs {
			gpus += len(a.Indices)
		}
		want := float64(gpus) * j.End.Sub(j.Start).Seconds()
		eh, ee := math.Abs(got.GPUSeconds-want)/want, math.Abs(got.EnergyJ-j.EnergyJ)/j.EnergyJ
		if eh > 0.005 || ee > 0.005 {
			t.Errorf("job %d: %.4f GPU-hours (truth %.4f), %.0f J (truth %.0f J)", j.Job, got.GPUSeconds/3600, want/3600,
				got.EnergyJ, j.EnergyJ)
		}
		worstH, worstE = max(worstH, eh), max(worstE, ee)
	}
	var open int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM gpu_assignment WHERE t_to IS NULL").Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d assignments left open", open)
	}
	t.Logf("largest error after 3 SIGKILLs: GPU-hours %.3f %%, energy %.3f %%", 100*worstH, 100*worstE)
}

func lastLine(out, with string) string {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], with) {
			return lines[i]
		}
	}
	return ""
}
