package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// TestPlannerPriorityMode (issue 31): priority-mode and nice-band reach
// the planner's options, the nice mode with its default band when the file
// is silent, nice-band = 0 as no order at all; a negative or non-number
// band and an unknown mode are refused with the key named.
func TestPlannerPriorityMode(t *testing.T) {
	type got struct {
		Mode planner.PriorityMode
		Band int64
	}
	for _, tc := range []struct {
		file string
		want got
	}{
		{"", got{planner.PriorityNice, planner.DefaultNiceBand}},
		{"[planner]\nnice-band = 500\n", got{planner.PriorityNice, 500}},
		{"[planner]\nnice-band = 0\n", got{planner.PriorityNice, 0}},
		{"[planner]\npriority-mode = \"absolute\"\n", got{planner.PriorityAbsolute, planner.DefaultNiceBand}},
	} {
		f, err := Load(writeFile(t, tc.file+"\n"))
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		o := f.Planner.Options()
		if err := o.Validate(); err != nil {
			t.Errorf("%q: refused by the planner: %v", tc.file, err)
		}
		r := o.Resolved()
		band := max(0, r.NiceBand)
		if diff := cmp.Diff(tc.want, got{r.PriorityMode, band}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.file, diff)
		}
	}
	for _, bad := range []string{"nice-band = -5", "nice-band = \"wide\"", "nice-band = 2.5", "priority-mode = \"relative\""} {
		if _, err := Load(writeFile(t, "[planner]\n"+bad+"\n")); err == nil || !strings.Contains(err.Error(), strings.Fields(bad)[0]) {
			t.Errorf("%s: error %v, want one naming the key", bad, err)
		}
	}
}
