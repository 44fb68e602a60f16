package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// The PRIORITY column follows the priority mode (issue 31): the nice in
// the nice mode, the priority in the absolute mode, "-" when neither.
func TestPriorityTextFollowsTheMode(t *testing.T) {
	nice := int64(-4000)
	got := []string{priorityText(planner.Decision{Nice: &nice}), priorityText(planner.Decision{Priority: 100010}), priorityText(planner.Decision{})}
	if diff := cmp.Diff([]string{"nice -4000", "100010", "-"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
