package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHintCheckCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of the error
	}{
		{"valid", []string{"hint", "check", "strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8"}, 0, "2-8 (the planner chooses", ""},
		{"durations", []string{"hint", "check", "strata: model=cifar10 batch=2048 iters=3338 gpus=1-16"}, 0, "1 GPUs 1h18m35s, 2 GPUs 47m7s, 4 GPUs 22m27s", ""},
		{"bare segment", []string{"hint", "check", "gpus=1-4 arch=allreduce"}, 0, "allreduce", ""},
		{"no segment", []string{"hint", "check", "just my notes"}, 0, "no strata: segment", ""},
		{"json", []string{"hint", "check", "--json", "strata: gpus=1-4"}, 0, `"gpu_max": 4`, ""},
		{"bad range", []string{"hint", "check", "strata: gpus=8-2"}, 2, "", "hint gpus=8-2: want MIN-MAX"},
		{"unknown model", []string{"hint", "check", "strata: model=resnet51 batch=64 iters=10"}, 2, "", "hint model=resnet51: not in the catalog"},
		{"unmeasured batch", []string{"hint", "check", "strata: model=cifar10 batch=100 iters=10"}, 2, "", "hint batch=100: cifar10 is measured at"},
		{"no argument", []string{"hint", "check"}, 2, "", "want exactly one argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := newApp(&out, &errOut).Run(append([]string{"strata"}, tt.args...))
			code := 0
			var ec exitCoder
			if errors.As(err, &ec) {
				code = ec.ExitCode()
			} else if err != nil {
				code = 1
			}
			if diff := cmp.Diff(tt.wantCode, code); diff != "" {
				t.Errorf("exit code (-want +got):\n%s\nerr: %v", diff, err)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out.String(), tt.wantOut)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v does not contain %q", err, tt.wantErr)
			}
		})
	}
}
