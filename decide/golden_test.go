package decide_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestDecideGolden pins decide.Decide's verdicts (issue 33.6): the
// planner's small-mixed snapshot, a history in which one job reached the
// per-job cap, one was preempted today, one wrote its limit of failures
// and one user is distrusted, under the daemon's default write limits and
// planner options, with smd. A change to any rule of the cycle (the
// annotations, the plan, a guard, the words) shows here as a diff of one
// line per job: run `go test ./decide -run TestDecideGolden -update` after
// checking it.
func TestDecideGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "planner", "testdata", "small-mixed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s planner.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var ranged, running []int64 // pending jobs with a gpus= range; running jobs
	for i := range s.Jobs {
		j := &s.Jobs[i]
		j.User = fmt.Sprintf("u%d", i%4) // four users, the last distrusted
		switch {
		case j.State == planner.JobPending && strings.Contains(j.Comment, "gpus="):
			ranged = append(ranged, j.ID)
		case j.State == planner.JobRunning:
			running = append(running, j.ID)
		}
	}
	if len(ranged) < 2 || len(running) < 1 {
		t.Fatalf("snapshot has %d ranged pending and %d running jobs: the test wants 2 and 1", len(ranged), len(running))
	}
	h := decide.History{
		Resizes:  map[int64]int{ranged[0]: decide.Defaults().MaxPerJob},
		Preempts: map[int64]int{running[0]: 1},
		Failed:   map[int64]int{ranged[1]: decide.Defaults().MaxFailedWrites},
		Claims:   map[string]planner.Claim{"u3": {Distrust: true, Note: "golden"}, "u2": {Factor: 2, Note: "golden"}},
	}
	o := decide.Defaults()
	pol, err := planner.NewPolicy("smd", decide.PlannerOptions(planner.SiteDefaults(), o))
	if err != nil {
		t.Fatal(err)
	}
	res, err := decide.Decide(context.Background(), pol, &s, h, o)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, v := range res.Verdicts {
		d := v.Send
		lines = append(lines, fmt.Sprintf("job %d: %s write=%v outcome=%q guard=%q workers=%d ps=%d rank=%d limit=%v reasons=%v",
			d.JobID, d.Action, v.Write, v.Outcome, v.Guard, d.Workers, d.PS, d.Rank, d.TimeLimit, d.Reasons))
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "small-mixed.smd.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("verdicts differ from %s (-want +got):\n%s", path, d)
	}
}
