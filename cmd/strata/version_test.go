package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// strata version --slurm names the REST versions slurmrestd offers, those
// Strata speaks and the one it uses: the newest both know.
func TestVersionSlurm(t *testing.T) {
	cases := []struct {
		name, recording string
		want            []string
	}{
		{"Slurm 24.11", "../../slurm/testdata", []string{
			"slurmrestd API versions strata speaks: v0.0.44, v0.0.42",
			" offers: v0.0.40, v0.0.41, v0.0.42",
			"slurmrestd API version used: v0.0.42"}},
		{"Slurm 26.05 through v0.0.44", "../../slurm/testdata/slurm-26.05/v0.0.44", []string{
			"slurmrestd API versions strata speaks: v0.0.44, v0.0.42",
			" offers: v0.0.44",
			"slurmrestd API version used: v0.0.44"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := slurmtest.NewServer(t, tc.recording)
			t.Setenv("SLURM_REST_URL", srv.URL)
			t.Setenv("SLURM_USER_NAME", "root")
			t.Setenv("SLURM_JWT", "not-a-real-token")
			t.Setenv("STRATA_SLURM_TOKEN_FILE", "")
			out, _, err := runStrata(t, "version", "--slurm")
			if err != nil {
				t.Fatalf("version --slurm: %v\n%s", err, out)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n")[2:] {
				lines = append(lines, strings.TrimPrefix(l, "slurmrestd "+srv.URL))
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("version --slurm (-want +got):\n%s", diff)
			}
		})
	}
	out, _, err := runStrata(t, "version")
	if err != nil || strings.Contains(out, "slurmrestd") {
		t.Errorf("version without --slurm: %v, %q; want no slurmrestd lines", err, out)
	}
}
