package hint

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func jsonDecode(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		asJSON  bool
		wantOut string // substring of the output
		wantErr string // substring of the error (an InvalidError)
	}{
		{"valid", "strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8", false, "2-8 (the planner chooses", ""},
		{"durations", "strata: model=cifar10 batch=2048 iters=3338 gpus=1-16", false, "1 GPUs 01:18:35, 2 GPUs 00:47:07, 4 GPUs 00:22:27", ""},
		{"bare segment", "gpus=1-4 arch=allreduce", false, "allreduce", ""},
		{"no segment", "just my notes", false, "no strata: segment", ""},
		{"json", "strata: gpus=1-4", true, `"gpu_max": 4`, ""},
		{"no segment as json", "just my notes", true, `"found": false`, ""},
		{"fixed size", "strata: model=resnet18 batch=64 iters=10 deadline=2030-01-01T00:00:00Z", false, "fixed: the job's --gres/--gpus request", ""},
		{"range cap stated for a comment", "strata: gpus=1-16", false, "site cap: the gpus= range reaches at most 2× the job's --gres/--gpus request", ""},
		{"bad range", "strata: gpus=8-2", false, "", "hint gpus=8-2: want MIN-MAX"},
		{"unknown model", "strata: model=resnet51 batch=64 iters=10", false, "", "hint model=resnet51: not in the catalog"},
		{"unmeasured batch", "strata: model=cifar10 batch=100 iters=10", false, "", "hint batch=100: cifar10 is measured at"},
		{"mem in the units of bb", "strata: gpus=2 mem=64GB bb=2TB", false, "mem per worker  64 GiB", ""},
		{"invalid as json", "strata: gpus=8-2", true, `"valid": false`, "hint gpus=8-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := Check(&out, tt.comment, Options{JSON: tt.asJSON, Catalog: planner.DefaultCatalog(), Planner: planner.Options{Limits: planner.DefaultLimits()}})
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Check: %v", err)
			}
			var inv InvalidError
			if tt.wantErr != "" && (!errors.As(err, &inv) || inv.ExitCode() != 2 || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v: want an InvalidError (exit 2) containing %q", err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("output %q does not contain %q", out.String(), tt.wantOut)
			}
		})
	}
}

// TestCheckScriptAgainstItsRequest (issue 26.1): the script's GPUs, time
// limit and the site's caps are used; a limit shorter than a modelled run
// and a deadline that cannot be met warn (exit 1 with Strict).
func TestCheckScriptAgainstItsRequest(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	const cifar = "model=cifar10 batch=2048 iters=3338"
	tests := []struct {
		name         string
		script       string
		limits       []planner.Limit
		wantOut      []string // substrings of the output
		wantNot      string   // not in the output
		wantWarnings int
	}{
		{"fixed size modelled at the script's GPUs", "#SBATCH --gres=gpu:2 -N 2\n#SBATCH --comment='strata: " + cifar + "'\n", nil,
			[]string{"fixed: 4 (the script's", "): 4 GPUs 00:22:27\n"}, "1 GPUs", 0},
		{"a limit shorter than the run", "#SBATCH --gres=gpu:4 --time=00:10:00\n#SBATCH --comment='strata: " + cifar + " gpus=2-4'\n", nil,
			[]string{"warning: --time=00:10:00 is shorter than the modelled run at 2 GPUs 00:47:07, 4 GPUs 00:22:27"}, "", 1},
		{"a limit long enough", "#SBATCH --gres=gpu:4 --time=02:00:00\n#SBATCH --comment='strata: " + cifar + " gpus=1-4'\n", nil,
			[]string{"time limit", "02:00:00"}, "warning", 0},
		{"a deadline already past", "#SBATCH --gres=gpu:4\n#SBATCH --comment='strata: gpus=4 deadline=2026-11-01T00:00'\n", nil,
			[]string{"warning: deadline=2026-11-01T00:00:00Z is already past"}, "", 1},
		{"a deadline that cannot be met", "#SBATCH --gres=gpu:4\n#SBATCH --comment='strata: " + cifar + " gpus=1-4 deadline=2026-11-27T12:10'\n", nil,
			[]string{"warning: deadline=2026-11-27T12:10:00Z cannot be met: even starting now, the fastest modelled run (4 GPUs, 00:22:27)"}, "", 1},
		{"default caps applied and stated", "#SBATCH --gres=gpu:2\n#SBATCH --comment='strata: gpus=1-16 weight=50'\n", planner.DefaultLimits(),
			[]string{"site cap: weight 50 capped to 1 (no weight granted to this account or partition)", "site cap: gpus=1-16 capped to 1-4 (site limit)", "1-4 (the planner chooses in this range; gpus=1-16 capped by the site)"}, "", 0},
		{"the minimum capped too; a granted weight", "#SBATCH --gres=gpu:1 -A ml\n#SBATCH --comment='strata: gpus=16 weight=5'\n",
			[]planner.Limit{{MaxGPUs: 4, MaxRangeFactor: 1}, {Account: "ml", MaxWeight: 8}},
			[]string{"site cap: gpus=16 capped to 1 (site limit)"}, "weight 5 capped", 0},
		{"a partition's cap", "#SBATCH --gres=gpu:8 -p small\n#SBATCH --comment='strata: gpus=2-8'\n", []planner.Limit{{Partition: "small", MaxGPUs: 4}, {Partition: "big", MaxGPUs: 2}},
			[]string{"gpus=2-8 capped to 2-4 (limit of partition small)"}, "partition big", 0},
		{"ignored #SBATCH warns", "#SBATCH --comment='strata: gpus=2'\necho hi\n#SBATCH --comment='strata: gpus=4'\n", nil,
			[]string{"warning: line 3: #SBATCH --comment='strata: gpus=4': after the first command, sbatch ignores it"}, "", 1},
		{"bert: iterations of a global batch", "#SBATCH --gres=gpu:4\n#SBATCH --comment='strata: model=bert batch=384 iters=2000 gpus=1-4'\n", nil,
			[]string{"global batch of 384, split across the GPUs"}, "does not shrink", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				var out strings.Builder
				err := CheckScript(&out, ReadScript(tt.script), Options{Now: now, Strict: strict, Planner: planner.Options{Limits: tt.limits}})
				var we WarningError
				switch {
				case strict && tt.wantWarnings > 0:
					if !errors.As(err, &we) || we.ExitCode() != 1 {
						t.Errorf("strict: err %v, want a WarningError (exit 1)", err)
					}
				case err != nil:
					t.Fatalf("CheckScript: %v\n%s", err, out.String())
				}
				if strict {
					if diff := cmp.Diff(tt.wantWarnings, len(we.Warnings)); diff != "" {
						t.Errorf("warnings (-want +got):\n%s\n%s", diff, out.String())
					}
					continue
				}
				for _, want := range tt.wantOut {
					if !strings.Contains(out.String(), want) {
						t.Errorf("output lacks %q:\n%s", want, out.String())
					}
				}
				if tt.wantNot != "" && strings.Contains(out.String(), tt.wantNot) {
					t.Errorf("output has %q:\n%s", tt.wantNot, out.String())
				}
			}
		})
	}
}

func TestCheckTable(t *testing.T) {
	var out strings.Builder
	if err := Check(&out, "strata: model=resnet50 batch=64 iters=1000 gpus=1-2 arch=ps ps=auto weight=2",
		Options{Catalog: planner.DefaultCatalog()}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var keys []string
	var times string
	for _, l := range lines {
		if strings.HasPrefix(l, "modelled run time") {
			times = l
			break
		}
		keys = append(keys, strings.Fields(l)[0])
	}
	if diff := cmp.Diff([]string{"model", "batch", "iterations", "gpus", "arch", "ps", "weight"}, keys); diff != "" {
		t.Errorf("hint rows (-want +got):\n%s\n%s", diff, out.String())
	}
	if !strings.HasPrefix(times, "modelled run time on the catalog's reference GPU (v100; ") || !strings.Contains(times, ": 1 GPUs ") {
		t.Errorf("run-time line %q, want the modelled run times naming the reference GPU", times)
	}
}

// Where the site keeps requests (the default: planner.Options.KeepRequest),
// the range starts at the script's request, the runs below it are not
// modelled (nor warned about), and the output says why; a comment checked
// alone states the rule.
func TestCheckScriptKeepsTheRequest(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	script := "#SBATCH --gres=gpu:2 --time=00:30:00\n#SBATCH --comment='strata: model=cifar10 batch=2048 iters=3338 gpus=1-4'\n"
	for _, tc := range []struct {
		keep    bool
		want    string
		wantNot string
	}{
		{true, "2-4 (the planner chooses in this range; never fewer than the script's 2: the site keeps requests", "1 GPUs"},
		{false, "1-4 (the planner chooses in this range)", "keeps requests"},
	} {
		var out strings.Builder
		err := CheckScript(&out, ReadScript(script), Options{Now: now, Planner: planner.Options{KeepRequest: tc.keep}})
		if err != nil {
			t.Fatalf("keep %v: %v", tc.keep, err)
		}
		if !strings.Contains(out.String(), tc.want) || strings.Contains(out.String(), tc.wantNot) {
			t.Errorf("keep %v: output %q, want %q and not %q", tc.keep, out.String(), tc.want, tc.wantNot)
		}
	}
	var out strings.Builder
	if err := Check(&out, "strata: gpus=1-4", Options{Now: now, Planner: planner.Options{KeepRequest: true}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "never fewer than the job's --gres/--gpus request") {
		t.Errorf("a comment alone: %q, want the rule stated", out.String())
	}
}
