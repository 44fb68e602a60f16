package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"github.com/strata-hpc/strata/planner"
)

// [planner.site-weights] reaches the planner's options; a negative or
// non-number weight, an unknown one or a value that is not a table is
// refused naming the key (strata exits 2 on a file Load refuses).
func TestPlannerSiteWeights(t *testing.T) {
	for _, tc := range []struct {
		file    string
		want    planner.SiteWeights
		wantErr string
	}{
		{"", planner.SiteWeights{}, ""},
		{"[planner.site-weights]\nfairshare = 10000\nqos = 10000\npartition = 1000\n", planner.SiteWeights{Fairshare: 10000, QOS: 10000, Partition: 1000}, ""},
		{"[planner.site-weights]\nqos = 1.5\nprotect = 4\n", planner.SiteWeights{QOS: 1.5, Protect: 4}, ""},
		{"[planner.site-weights]\nfairshare = -1\n", planner.SiteWeights{}, "site-weights: fairshare: want a number ≥ 0"},
		{"[planner.site-weights]\nqos = \"high\"\n", planner.SiteWeights{}, "site-weights: qos: want a number"},
		{"[planner.site-weights]\nage = 1\n", planner.SiteWeights{}, "site-weights: age: unknown weight"},
		{"[planner]\nsite-weights = 3\n", planner.SiteWeights{}, "site-weights = 3: want a table"},
	} {
		f, err := Load(writeFile(t, tc.file+"\n"))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), "planner."+tc.wantErr) {
				t.Errorf("%q: err = %v, want one containing %q", tc.file, err, "planner."+tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		o := f.Planner.Options()
		if err := o.Validate(); err != nil {
			t.Errorf("%q: refused by the planner: %v", tc.file, err)
		}
		if diff := cmp.Diff(tc.want, o.SiteWeights); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.file, diff)
		}
	}
}

// An account or a QOS in [[planner.limits]] that Slurm does not know is
// refused (exit 2) naming the key; known names and limits without one
// pass.
func TestCheckSiteNames(t *testing.T) {
	known, qos := []string{"research", "root"}, []string{"high", "normal"}
	for _, tc := range []struct {
		file    string
		wantErr string
	}{
		{"[[planner.limits]]\naccount = \"research\"\nmax-weight = 2\n", ""},
		{"[[planner.limits]]\npartition = \"gpu\"\nmax-weight = 2\n", ""},
		{"[[planner.limits]]\naccount = \"research\"\n[[planner.limits]]\naccount = \"physics\"\n",
			`planner.limits[1].account: Slurm knows no account "physics"`},
		{"[[planner.limits]]\nqos = \"high\"\nmax-weight = 4\n", ""},
		{"[[planner.limits]]\nqos = \"gold\"\nmax-weight = 4\n", `planner.limits[0].qos: Slurm knows no QOS "gold" (it has [high normal])`},
	} {
		f, err := Load(writeFile(t, tc.file))
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		err = CheckSiteNames(f, known, qos)
		var ie inputerr.Error
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.file, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ie)):
			t.Errorf("%q: err = %v, want an input error containing %q", tc.file, err, tc.wantErr)
		}
	}
}
