package main

import (
	"errors"
	"strings"
	"testing"
)

// strata simulate --from-slurmdbd refuses what it cannot use before it
// connects to Slurm, with exit status 2 and the flag to fix.
func TestSimulateFromSlurmdbdBadInput(t *testing.T) {
	t.Setenv("SLURM_REST_URL", "")
	t.Setenv("STRATA_SLURM_URL", "")
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"with a trace", []string{"--trace", simTiny}, "leave out --trace and --cluster"},
		{"with a cluster", []string{"--cluster", "4x4"}, "leave out --trace and --cluster"},
		{"bad start", []string{"-S", "last tuesday"}, "--starttime"},
		{"start after end", []string{"-S", "now", "-E", "now-1days"}, "is not before --endtime"},
		{"negative history", []string{"--history-days=-1"}, "--history-days"},
		{"trace-shaping flag", []string{"--knowledge", "realistic"}, "--knowledge does not apply"},
		{"plots", []string{"--plot", "/tmp/x"}, "--plot does not apply"},
		{"no slurmrestd", nil, "slurm connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runStrata(t, append([]string{"simulate", "--from-slurmdbd"}, tc.args...)...)
			var ec exitCoder
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ec) || ec.ExitCode() != 2 {
				t.Errorf("err = %v, want exit status 2 and %q", err, tc.wantErr)
			}
		})
	}
}
