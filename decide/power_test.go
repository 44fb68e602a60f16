package decide_test

import (
	"testing"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func TestCheckPower(t *testing.T) {
	tests := []struct {
		name    string
		node    planner.Node
		up      bool
		want    decide.Outcome
		wantWhy string
	}{
		{"idle node goes down", planner.Node{State: []string{"IDLE"}}, false, "", ""},
		{"drained idle node goes down", planner.Node{State: []string{"IDLE", "DRAIN"}}, false, "", ""},
		{"allocated node stays", planner.Node{State: []string{"ALLOCATED"}, AllocCPUs: 16}, false, decide.Refused, "a job holds the node"},
		{"mixed node stays", planner.Node{State: []string{"MIXED"}}, false, decide.Refused, "a job holds the node"},
		{"a GPU allocated, state idle", planner.Node{State: []string{"IDLE"}, AllocGPUs: 1}, false, decide.Refused, "a job holds the node"},
		{"completing node stays", planner.Node{State: []string{"IDLE", "COMPLETING"}}, false, decide.Refused, "a job holds the node"},
		{"already down", planner.Node{State: []string{"IDLE", "POWERED_DOWN"}}, false, decide.Unchanged, "node is already powered down"},
		{"going down", planner.Node{State: []string{"IDLE", "POWERING_DOWN"}}, false, decide.Unchanged, "node is already powered down"},
		{"booting", planner.Node{State: []string{"IDLE", "POWERING_UP"}}, false, decide.Refused, "node is powering up"},
		{"powered-down node goes up", planner.Node{State: []string{"IDLE", "POWERED_DOWN"}}, true, "", ""},
		{"powered node stays up", planner.Node{State: []string{"IDLE"}}, true, decide.Unchanged, "node is powered"},
		{"booting node", planner.Node{State: []string{"IDLE", "POWERING_UP"}}, true, decide.Unchanged, "node is already powering up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := decide.CheckPower(tt.node, tt.up)
			if got != tt.want || why != tt.wantWhy {
				t.Errorf("CheckPower = %q, %q; want %q, %q", got, why, tt.want, tt.wantWhy)
			}
		})
	}
}
