package hint

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner"
)

// TestReadScript (issue 26.1): a script is read exactly as sbatch reads it.
func TestReadScript(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		want       Script
		wantErrors []string // substrings, one per error
	}{
		{"comment, gres and bb", "#!/bin/bash\n#SBATCH --gres=gpu:4\n#SBATCH --comment=\"strata: model=resnet50 gpus=1-4; my notes\"\n#BB_LUA pool=nvme capacity=10G\nsrun python train.py\n",
			Script{Comment: "strata: model=resnet50 gpus=1-4; my notes", HasComment: true, GPUs: 4, BBLines: []string{"#BB_LUA pool=nvme capacity=10G"}}, nil},
		{"#SBATCH after the first command is ignored", "#!/bin/bash\n#SBATCH --comment='strata: gpus=2-8'\n\n# set up\nmodule load cuda\n#SBATCH --comment='strata: gpus=1'\n",
			Script{Comment: "strata: gpus=2-8", HasComment: true, Ignored: []string{"line 6: #SBATCH --comment='strata: gpus=1'"}}, nil},
		{"the last of two --comment wins", "#SBATCH --comment='strata: gpus=1'\n#SBATCH --comment 'strata: gpus=2-4'\n",
			Script{Comment: "strata: gpus=2-4", HasComment: true}, nil},
		{"the last of two --comment on one line wins", "#SBATCH --comment=strata:gpus=1 --comment=\"strata: gpus=2-4\"\n",
			Script{Comment: "strata: gpus=2-4", HasComment: true}, nil},
		{"an unambiguous prefix of a long option", "#SBATCH --comme='strata: gpus=2-4' --parti=gpu\n",
			Script{Comment: "strata: gpus=2-4", HasComment: true, Partition: "gpu"}, nil},
		{"an ambiguous prefix is refused", "#SBATCH --co=x\n", Script{}, []string{"sbatch would refuse --co: ambiguous (--comment, --constraint, --container"}},
		{"gres per node times nodes, time, partition, account", "#SBATCH --gres=gpu:a100:2,nvme:1 -N 3 -t 1-02:00 -p gpu,gpub -A vision\n",
			Script{GPUs: 6, GPUType: "a100", TimeLimit: 26 * time.Hour, Partition: "gpu", Account: "vision"}, nil},
		{"--gpus is the total", "#SBATCH -N2 --gres=gpu:4\n#SBATCH -G3 --time=00:10:00\n", Script{GPUs: 3, TimeLimit: 10 * time.Minute}, nil},
		{"clustered short options and a comment on the line", "#SBATCH -HN2 --gpus-per-node=2 --requeue # two nodes\n", Script{GPUs: 4}, nil},
		{"indented #SBATCH is a comment", "  #SBATCH --gres=gpu:8\n", Script{}, nil},
		{"bad time", "#SBATCH --time=soon\n", Script{}, []string{"sbatch would refuse --time=soon"}},
		{"not an option", "#SBATCH gpus=4\n", Script{}, []string{"#SBATCH gpus=4: not an option"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReadScript(tt.script)
			var errs []string
			for _, e := range got.Errors {
				errs = append(errs, e.Error())
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Script{}, "Errors")); diff != "" {
				t.Errorf("ReadScript (-want +got):\n%s", diff)
			}
			if len(errs) != len(tt.wantErrors) {
				t.Fatalf("errors %q, want %d", errs, len(tt.wantErrors))
			}
			for i, want := range tt.wantErrors {
				if !strings.Contains(errs[i], want) {
					t.Errorf("error %q lacks %q", errs[i], want)
				}
			}
		})
	}
}

// TestParseSlurmTime reads --time in every form sbatch accepts.
func TestParseSlurmTime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90": 90 * time.Minute, "10:30": 10*time.Minute + 30*time.Second, "01:02:03": time.Hour + 2*time.Minute + 3*time.Second,
		"2-3": 51 * time.Hour, "1-00:30": 24*time.Hour + 30*time.Minute, "1-0:0:5": 24*time.Hour + 5*time.Second, "UNLIMITED": 0,
	} {
		got, err := ParseSlurmTime(in)
		if err != nil || got != want {
			t.Errorf("ParseSlurmTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseSlurmTime("1:2:3:4"); err == nil {
		t.Error("1:2:3:4 accepted")
	}
}

// TestCheckScriptReportsEverything: a script with a misspelt key and a bad
// burst-buffer line gets both at once; mem=64GB is a size as bb=2TB is.
func TestCheckScriptReportsEverything(t *testing.T) {
	s := ReadScript("#SBATCH --comment=\"strata: modle=resnet50 mem=64GB gpus=1-4\"\n#BB_LUA capacity=10XB\n")
	var out bytes.Buffer
	err := CheckScript(&out, s, Options{Catalog: planner.DefaultCatalog()})
	if _, ok := err.(InvalidError); !ok {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	for _, want := range []string{"did you mean model=resnet50?", "burst buffer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "mem") {
		t.Errorf("mem=64GB refused: %v", err)
	}
}

// TestCheckScriptJSONWhenInvalid: --json answers an invalid hint with JSON.
func TestCheckScriptJSONWhenInvalid(t *testing.T) {
	var out bytes.Buffer
	err := CheckScript(&out, ReadScript("#SBATCH --comment='strata: gpus=8-2 color=blue'\n"), Options{JSON: true})
	var inv InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	var got struct {
		Valid  bool     `json:"valid"`
		Errors []string `json:"errors"`
	}
	if err := jsonDecode(out.Bytes(), &got); err != nil {
		t.Fatalf("output is no JSON: %v\n%s", err, out.String())
	}
	if diff := cmp.Diff(2, len(got.Errors)); got.Valid || diff != "" {
		t.Errorf("valid %v, errors %q; want false and 2 errors", got.Valid, got.Errors)
	}
}
