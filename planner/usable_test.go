package planner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNodeUsable(t *testing.T) {
	cases := []struct {
		state []string
		want  bool
	}{
		{[]string{"IDLE"}, true},
		{[]string{"MIXED"}, true},
		{[]string{"IDLE", "DRAIN"}, false},
		{[]string{"MIXED", "POWERING_DOWN"}, false},
		{[]string{"IDLE", "BLOCKED"}, false}, // Slurm 26.05: blocked by an exclusive-topology job
		{nil, false},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, Node{State: tc.state}.Usable()); diff != "" {
			t.Errorf("state %v: usable (-want +got):\n%s", tc.state, diff)
		}
	}
}
