package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCLIHabits (issue 17): flags after arguments, unknown commands and
// unknown flags behave as Slurm users expect: a one-line error on stderr,
// exit status 2, nothing on stdout.
func TestCLIHabits(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // contained
		stderr   string // contained
		noStdout bool
	}{
		{"flag after the argument", []string{"hint", "check", "model=resnet50 gpus=1-4", "--json"}, 0, `"found": true`, "", false},
		{"unknown command", []string{"nosuch"}, 2, "", `unknown command "nosuch"`, true},
		{"unknown flag", []string{"queue", "--nosuch"}, 2, "", "flag provided but not defined: -nosuch (see `strata queue --help`)", true},
		{"unknown flag of a subcommand", []string{"hint", "check", "--nosuch", "x=1"}, 2, "", "see `strata hint check --help`", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runCLI(context.Background(), append([]string{"strata"}, tt.args...), &out, &errb)
			if code != tt.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stdout %q, stderr %q; want them to contain %q and %q", out.String(), errb.String(), tt.stdout, tt.stderr)
			}
			if tt.noStdout && out.Len() > 0 {
				t.Errorf("stdout should be empty, got %d bytes", out.Len())
			}
		})
	}
}
