package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// TestIntegrationQueueAndDryRunPlan runs `strata queue` and a dry-run
// `strata plan` against the real test cluster: read-only, so safe next to
// other tests. Foreign jobs may appear; only our jobs are checked.
func TestIntegrationQueueAndDryRunPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster")
	}
	cl := slurmtest.Connect(t)
	t.Setenv("SLURM_REST_URL", cl.Config.URL)
	t.Setenv("SLURM_USER_NAME", cl.Config.User)
	t.Setenv("SLURM_JWT", string(cl.Config.Token))
	t.Setenv("STRATA_SLURM_TOKEN_FILE", "")
	good := cl.Sbatch(t, "-J", "it-queue-good", "--gres=gpu:2", "-N", "2", "--begin=now+3600",
		"--comment=strata: model=resnet50 gpus=1-4", "--wrap=sleep 30")
	bad := cl.Sbatch(t, "-J", "it-queue-bad", "--gres=gpu:1", "--begin=now+3600",
		"--comment=strata: gpus=4-2", "--wrap=sleep 30")
	before := cl.ShowJob(t, good)

	out, _, err := runStrata(t, "queue", "-P", "-n")
	if err != nil {
		t.Fatalf("strata queue: %v", err)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		id, _, _ := strings.Cut(l, "|")
		lines[id] = l
	}
	if got, want := lines[fmt.Sprint(good)], fmt.Sprintf("%d|gpu|it-queue-good|root|PD|2x2|", good); !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "|strata: model=resnet50 gpus=1-4") {
		t.Errorf("queue line for job %d = %q, want %q...|strata: model=resnet50 gpus=1-4", good, got, want)
	}
	if got := lines[fmt.Sprint(bad)]; !strings.Contains(got, "|ERROR hint gpus=4-2:") {
		t.Errorf("queue line for job %d = %q, want the hint error", bad, got)
	}

	out, _, err = runStrata(t, "--log-level", "error", "plan", "--policy", "fifo", "--dry-run")
	if err != nil {
		t.Fatalf("strata plan --dry-run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "dry run: nothing sent") {
		t.Errorf("plan output lacks the dry-run banner:\n%s", out)
	}
	after := cl.ShowJob(t, good)
	for _, k := range []string{"Priority", "TresPerNode", "AdminComment", "NumNodes"} {
		if before[k] != after[k] {
			t.Errorf("dry run changed %s of job %d: %q -> %q", k, good, before[k], after[k])
		}
	}
}
