package planner_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json inputs and *.golden plans")

// goldenCases build the input snapshots; with -update they are written to
// testdata/<case>.json, and the tests always read that file.
var goldenCases = map[string]func() *planner.Snapshot{
	"small-mixed": func() *planner.Snapshot { return mixedSnapshot(3) },
	"two-nodes": func() *planner.Snapshot {
		return pt.Cluster("two-nodes", t0).Partition("gpu", true).Nodes("n", 2, 4, 32, 256*1024, "gpu", "").
			Running(1, 2, "n0001", t0.Add(-time.Hour)).
			Pending(2, 4, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8", pt.Submitted(t0.Add(-30*time.Minute))).
			Pending(3, 1, "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=1-4 arch=ps ps=auto").
			Pending(4, 2, "no hint here", pt.TimeLimit(2*time.Hour)).
			Pending(5, 8, "strata: model=vgg16 batch=64 iters=100000 gpus=8 arch=allreduce").
			Build()
	},
	// Deadlines, weights and energy preferences, for the policies that read
	// them (edf, priority, andreas, smd's tardiness term).
	"deadlines": func() *planner.Snapshot {
		at := func(h time.Duration) string { return t0.Add(h * time.Hour).Format(time.RFC3339) }
		return pt.Cluster("deadlines", t0).Partition("gpu", true).Nodes("n", 2, 4, 32, 256*1024, "gpu", "t4").
			Running(1, 2, "n0001", t0.Add(-time.Hour)).
			Pending(2, 4, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8 deadline="+at(2)+" weight=2", pt.Submitted(t0.Add(-30*time.Minute))).
			Pending(3, 2, "strata: model=resnet50 batch=64 epochs=1 samples=1281167 gpus=1-4 deadline="+at(30)+" energy=min").
			Pending(4, 2, "strata: deadline="+at(1)+" weight=0.5", pt.TimeLimit(2*time.Hour)).
			Pending(5, 4, "strata: model=cifar10 batch=2048 iters=3338 gpus=2-4 deadline="+at(3)).
			Pending(6, 1, "no hint here").
			Build()
	},
}

func TestGoldenPlans(t *testing.T) {
	for name, build := range goldenCases {
		in := filepath.Join("testdata", name+".json")
		if *update {
			writeJSON(t, in, build())
		}
		var s planner.Snapshot
		readJSON(t, in, &s)
		for _, policy := range []string{"smd", "fifo", "tiresias", "optimus", "edf", "priority", "andreas"} {
			t.Run(name+"/"+policy, func(t *testing.T) {
				p, _ := planner.NewPolicy(policy, planner.Options{})
				got, err := p.Plan(context.Background(), &s)
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", name+"."+policy+".golden")
				if *update {
					writeJSON(t, golden, got)
				}
				var want planner.Plan
				readJSON(t, golden, &want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("plan differs from %s (-want +got; run go test -update after checking):\n%s", golden, diff)
				}
			})
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (run go test -update to create it): %v", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
}
