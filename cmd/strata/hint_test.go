package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db/dbtest"
)

// TestHintCheckCommand runs `strata hint check` (the checks themselves are
// tested in internal/hint): output, flag and exit status.
func TestHintCheckCommand(t *testing.T) {
	script := writeFile(t, "job.sbatch", "#!/bin/bash\n#SBATCH -p gpu --gres=gpu:2 --time=00:10:00\n"+
		"#SBATCH --comment='strata: model=cifar10 batch=2048 iters=3338 gpus=1-4'\nsrun python train.py\n", 0o600)
	capsConfig := writeFile(t, "strata.toml", "[[planner.limits]]\npartition = \"gpu\"\nmax-gpus = 2\n", 0o600)
	records, gone := "postgres://unset", "postgres://unset" // -short: no database, its cases skipped
	if !testing.Short() {
		records = dbtest.URL(t) // the site's records: an empty, migrated database
		dbtest.Open(t, records, true)
		gone = strings.Replace(dbtest.URL(t), "strata_t_", "strata_gone_", 1)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of the error
	}{
		{"valid", []string{"hint", "check", "strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8"}, 0, "2-8 (the planner chooses", ""},
		{"json", []string{"hint", "check", "--json", "strata: gpus=1-4"}, 0, `"gpu_max": 4`, ""},
		{"bad range", []string{"hint", "check", "strata: gpus=8-2"}, 2, "", "hint gpus=8-2: want MIN-MAX"},
		{"no argument: a script on stdin (empty here)", []string{"hint", "check"}, 0, "sets no #SBATCH --comment", ""},
		{"two arguments", []string{"hint", "check", "gpus=1-2", "gpus=2-4"}, 2, "", "want one argument"},
		{"a missing script", []string{"hint", "check", "nonexist.sbatch"}, 2, "", "no job script nonexist.sbatch"},
		{"json of a bad hint", []string{"hint", "check", "--json", "strata: gpus=8-2"}, 2, `"valid": false`, "hint gpus=8-2"},
		{"a script whose limit is too short", []string{"hint", "check", script}, 0, "warning: --time=00:10:00 is shorter", ""},
		{"the same with --strict", []string{"hint", "check", "--strict", script}, 1, "warning: --time=00:10:00 is shorter", "1 warning(s) with --strict"},
		{"the site's records read for the spread", []string{"hint", "check", "--database-url", records, script}, 0,
			"expected spread: not known: no ended run of cifar10 on an untyped GPU here yet", ""},
		{"a database that cannot be read: the check goes on", []string{"hint", "check", "--database-url", gone, script}, 0,
			"expected spread: not known: the site's records could not be read (", ""},
		{"site caps from the configuration", []string{"--config", capsConfig, "hint", "check", script}, 0, "site cap: gpus=1-4 capped to 1-2 (limit of partition gpu)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && slices.Contains(tt.args, "--database-url") {
				t.Skip("needs Postgres")
			}
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
