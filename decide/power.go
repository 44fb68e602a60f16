package decide

import (
	"slices"

	"github.com/strata-hpc/strata/planner"
)

// powerDownStates are the node state flags of a node powered down or on
// its way there.
var powerDownStates = []string{"POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN"}

// busyStates are node states in which a job holds (or is leaving) the node.
var busyStates = []string{"ALLOCATED", "MIXED", "COMPLETING"}

// CheckPower says whether node n may be powered down (up false) or up now:
// "" when it may, else the outcome (Unchanged: already in that state;
// Refused: a job holds it, or it is powering up) and why. A node with a
// job, or with allocated CPUs or GPUs, is never powered down.
func CheckPower(n planner.Node, up bool) (Outcome, string) {
	has := func(states []string) bool {
		return slices.ContainsFunc(n.State, func(s string) bool { return slices.Contains(states, s) })
	}
	if up {
		switch {
		case has(powerDownStates):
			return "", ""
		case slices.Contains(n.State, "POWERING_UP"):
			return Unchanged, "node is already powering up"
		}
		return Unchanged, "node is powered"
	}
	switch {
	case has(powerDownStates):
		return Unchanged, "node is already powered down"
	case slices.Contains(n.State, "POWERING_UP"):
		return Refused, "node is powering up"
	case n.AllocCPUs > 0 || n.AllocGPUs > 0 || has(busyStates):
		return Refused, "a job holds the node"
	}
	return "", ""
}
