package hint

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		asJSON  bool
		wantOut string // substring of the output
		wantErr string // substring of the error (an InvalidError)
	}{
		{"valid", "strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8", false, "2-8 (the planner chooses", ""},
		{"durations", "strata: model=cifar10 batch=2048 iters=3338 gpus=1-16", false, "1 GPUs 1h18m35s, 2 GPUs 47m7s, 4 GPUs 22m27s", ""},
		{"bare segment", "gpus=1-4 arch=allreduce", false, "allreduce", ""},
		{"no segment", "just my notes", false, "no strata: segment", ""},
		{"json", "strata: gpus=1-4", true, `"gpu_max": 4`, ""},
		{"no segment as json", "just my notes", true, `"found": false`, ""},
		{"fixed size", "strata: model=resnet18 batch=64 iters=10 deadline=2030-01-01T00:00:00Z", false, "fixed (as requested", ""},
		{"bad range", "strata: gpus=8-2", false, "", "hint gpus=8-2: want MIN-MAX"},
		{"unknown model", "strata: model=resnet51 batch=64 iters=10", false, "", "hint model=resnet51: not in the catalog"},
		{"unmeasured batch", "strata: model=cifar10 batch=100 iters=10", false, "", "hint batch=100: cifar10 is measured at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := Check(&out, tt.comment, tt.asJSON, planner.DefaultCatalog())
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

func TestCheckTable(t *testing.T) {
	var out strings.Builder
	if err := Check(&out, "strata: model=resnet50 batch=64 iters=1000 gpus=1-2 arch=ps ps=auto weight=2",
		false, planner.DefaultCatalog()); err != nil {
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
