package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/slurm/guard"
)

func TestWriteEnv(t *testing.T) {
	env := map[string]string{"SLURM_GPUS_ON_NODE": "2", "SLURM_JOB_NUM_NODES": "3"}
	tests := []struct {
		name    string
		comment string
		want    string
	}{
		{"decided", "strata: workers=4 ps=1 rank=2 cycle=17 Comment=x",
			"export STRATA_JOB_ID=9\nexport STRATA_DECIDED=1\nexport STRATA_WORKERS=4\nexport STRATA_PS=1\nexport STRATA_RANK=2\nexport STRATA_CYCLE=17\n# source: scontrol\n"},
		{"no decision: own allocation", "(null) Comment=x",
			"export STRATA_JOB_ID=9\nexport STRATA_DECIDED=0\nexport STRATA_WORKERS=6\nexport STRATA_PS=0\nexport STRATA_RANK=0\nexport STRATA_CYCLE=0\n# source: scontrol\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := guard.ParseAdminComment(tt.comment)
			var buf bytes.Buffer
			if err := writeEnv(&buf, 9, a, ok, "scontrol", func(k string) string { return env[k] }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("exports (-want +got):\n%s", diff)
			}
		})
	}
}
