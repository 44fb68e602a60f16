package guard_test

import (
	"testing"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm/guard"
)

func TestCheckPower(t *testing.T) {
	tests := []struct {
		name    string
		node    planner.Node
		up      bool
		want    guard.Outcome
		wantWhy string
	}{
		{"idle node goes down", planner.Node{State: []string{"IDLE"}}, false, "", ""},
		{"drained idle node goes down", planner.Node{State: []string{"IDLE", "DRAIN"}}, false, "", ""},
		{"allocated node stays", planner.Node{State: []string{"ALLOCATED"}, AllocCPUs: 16}, false, guard.Refused, "a job holds the node"},
		{"mixed node stays", planner.Node{State: []string{"MIXED"}}, false, guard.Refused, "a job holds the node"},
		{"a GPU allocated, state idle", planner.Node{State: []string{"IDLE"}, AllocGPUs: 1}, false, guard.Refused, "a job holds the node"},
		{"completing node stays", planner.Node{State: []string{"IDLE", "COMPLETING"}}, false, guard.Refused, "a job holds the node"},
		{"already down", planner.Node{State: []string{"IDLE", "POWERED_DOWN"}}, false, guard.Unchanged, "node is already powered down"},
		{"going down", planner.Node{State: []string{"IDLE", "POWERING_DOWN"}}, false, guard.Unchanged, "node is already powered down"},
		{"booting", planner.Node{State: []string{"IDLE", "POWERING_UP"}}, false, guard.Refused, "node is powering up"},
		{"powered-down node goes up", planner.Node{State: []string{"IDLE", "POWERED_DOWN"}}, true, "", ""},
		{"powered node stays up", planner.Node{State: []string{"IDLE"}}, true, guard.Unchanged, "node is powered"},
		{"booting node", planner.Node{State: []string{"IDLE", "POWERING_UP"}}, true, guard.Unchanged, "node is already powering up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := guard.CheckPower(tt.node, tt.up)
			if got != tt.want || why != tt.wantWhy {
				t.Errorf("CheckPower = %q, %q; want %q, %q", got, why, tt.want, tt.wantWhy)
			}
		})
	}
}
