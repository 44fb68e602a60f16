package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
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
		{"every error starts with strata:", []string{"hint", "check", "strata: gpus=8-2 color=blue"}, 2, "",
			"strata: hint color=blue: unknown key", true},
		// issue 34.4: --json always answers JSON, also where there is nothing to check
		{"--json, no such script", []string{"hint", "check", "--json", "nosuch.sbatch"}, 2,
			`"errors": [
    "hint check: no job script nosuch.sbatch`, "strata: hint check: no job script nosuch.sbatch", false},
		{"--json, a directory", []string{"hint", "check", "/", "--json"}, 2, `"valid": false`, "no job script /", false},
		{"serve: an identity header needs trusted proxies", []string{"serve", "--user-header", "X-Forwarded-User"}, 2, "",
			"strata: serve: --user-header needs --trusted-proxies", true},
		{"serve: a bad proxy address", []string{"serve", "--trusted-proxies", "10.0.0.0/33"}, 2, "",
			`strata: trusted-proxies: "10.0.0.0/33": want an IP address or a CIDR prefix`, true},
		{"--json, two arguments", []string{"hint", "check", "--json", "a", "b"}, 2, `"valid": false`, "want one argument", false},
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
			for _, line := range strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n") {
				if line != "" && !strings.HasPrefix(line, "strata: ") && !strings.HasPrefix(line, " ") {
					t.Errorf("stderr line %q does not start with strata:", line)
				}
			}
			if slices.Contains(tt.args, "--json") && !json.Valid(out.Bytes()) {
				t.Errorf("--json: stdout is not one JSON document: %q", out.String())
			}
			if tt.noStdout && out.Len() > 0 {
				t.Errorf("stdout should be empty, got %d bytes", out.Len())
			}
		})
	}
}

// TestCollectSourceFromTheConfigFile: a required setting may come from the
// configuration file (it was refused as "Required flag not set").
func TestCollectSourceFromTheConfigFile(t *testing.T) {
	cfg := t.TempDir() + "/strata.toml"
	if err := os.WriteFile(cfg, []byte("source = \"replay\"\nreplay-file = \"/nonexistent/rec.jsonl\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	runCLI(context.Background(), []string{"strata", "--config", cfg, "collect"}, &out, &errb)
	if s := errb.String(); strings.Contains(s, "is required") || !strings.Contains(s, "/nonexistent/rec.jsonl") {
		t.Errorf("collect with source in the file: %q, want it to try the replay file", s)
	}
	errb.Reset()
	if code := runCLI(context.Background(), []string{"strata", "collect"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--source is required") {
		t.Errorf("collect without a source: exit %d, %q", code, errb.String())
	}
}
