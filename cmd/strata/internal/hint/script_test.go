package hint

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestReadScript(t *testing.T) {
	got := ReadScript(`#!/bin/bash
#SBATCH --gres=gpu:4
#SBATCH --comment="strata: model=resnet50 gpus=1-4; my notes"
#BB_LUA pool=nvme capacity=10G
srun python train.py
`)
	want := Script{Comment: "strata: model=resnet50 gpus=1-4; my notes", HasComment: true, BBLines: []string{"#BB_LUA pool=nvme capacity=10G"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadScript (-want +got):\n%s", diff)
	}
	for in, want := range map[string]string{
		"--comment=strata:gpus=2":          "strata:gpus=2",
		"--comment 'strata: gpus=1-2' -N1": "strata: gpus=1-2",
		"-N 1 --comment=\"a b\"":           "a b",
	} {
		if got, ok := commentOption(in); !ok || got != want {
			t.Errorf("commentOption(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestCheckScriptReportsEverything: a script with a misspelt key, a
// Slurm-unit mistake and a bad burst-buffer line gets all three at once.
func TestCheckScriptReportsEverything(t *testing.T) {
	s := ReadScript("#SBATCH --comment=\"strata: modle=resnet50 mem=64GB gpus=1-4\"\n#BB_LUA capacity=10XB\n")
	var out bytes.Buffer
	err := CheckScript(&out, s, false, planner.DefaultCatalog())
	if _, ok := err.(InvalidError); !ok {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	for _, want := range []string{"did you mean model=resnet50?", "write 64G instead of 64GB", "burst buffer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
