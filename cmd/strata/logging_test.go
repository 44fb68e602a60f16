package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
)

// TestClientCommandsQuiet (issue 35.6): a client command prints its answer
// and no info lines ("slurmrestd api chosen") unless -v is given, after the
// command's name or before it; an explicit --log-level wins.
func TestClientCommandsQuiet(t *testing.T) {
	recordedSlurm(t)
	t.Setenv("STRATA_LOG_LEVEL", "")
	os.Unsetenv("STRATA_LOG_LEVEL")
	tests := []struct {
		name     string
		args     []string
		wantInfo bool
	}{
		{"queue: quiet", []string{"queue", "-P"}, false},
		{"queue -v", []string{"queue", "-P", "-v"}, true},
		{"-v queue", []string{"-v", "queue", "-P"}, true},
		{"queue --verbose", []string{"queue", "--verbose", "-P"}, true},
		{"--log-level info", []string{"--log-level", "info", "queue", "-P"}, true},
		{"--log-level warn wins over -v", []string{"--log-level", "warn", "queue", "-P", "-v"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := runStrata(t, tc.args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", tc.args, err, errOut)
			}
			if !strings.HasPrefix(out, "JOBID|") {
				t.Errorf("stdout %q: want the queue", out)
			}
			got := strings.Contains(errOut, "level=info") && strings.Contains(errOut, "slurmrestd api chosen")
			if got != tc.wantInfo {
				t.Errorf("info lines on stderr: %v, want %v:\n%s", got, tc.wantInfo, errOut)
			}
		})
	}
}

// TestDefaultLogLevel (issue 35.6): the daemons and the admin's batch
// commands keep logging at info; the other commands log warnings unless
// verbose.
func TestDefaultLogLevel(t *testing.T) {
	tests := []struct {
		path    []string
		verbose bool
		want    string
	}{
		{[]string{"run"}, false, "info"},
		{[]string{"collect", "--source", "exporter"}, false, "info"},
		{[]string{"serve"}, false, "info"},
		{[]string{"db", "migrate"}, false, "info"},
		{[]string{"report", "refresh"}, false, "info"},
		{[]string{"report", "energy"}, false, "warn"},
		{[]string{"queue"}, false, "warn"},
		{[]string{"explain", "12"}, false, "warn"},
		{[]string{"hint", "check"}, false, "warn"},
		{[]string{"queue"}, true, "info"},
		{nil, false, "warn"},
	}
	var got, want []string
	for _, tc := range tests {
		got = append(got, strings.Join(tc.path, " ")+": "+cliflags.DefaultLogLevel(tc.path, tc.verbose))
		want = append(want, strings.Join(tc.path, " ")+": "+tc.want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("default log level (-want +got):\n%s", d)
	}
}

// TestQueueFormatHelp (issue 35.6): `strata queue -o help` lists the
// fields and exits 0, without slurmrestd; a format without fields points
// to it.
func TestQueueFormatHelp(t *testing.T) {
	t.Setenv("SLURM_REST_URL", "http://127.0.0.1:1")
	out, _, err := runStrata(t, "queue", "-o", "help")
	if err != nil || !strings.Contains(out, "%l     TIME_LIMIT") || !strings.HasPrefix(out, "FIELD") {
		t.Errorf("queue -o help: %v\n%s", err, out)
	}
	recordedSlurm(t)
	_, _, err = runStrata(t, "queue", "-o", "nothing")
	if exitCodeOf(err) != 2 || !strings.Contains(err.Error(), "-o help lists them") {
		t.Errorf("queue -o nothing: %v (exit %d); want exit 2 pointing to -o help", err, exitCodeOf(err))
	}
}
