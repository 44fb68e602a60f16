package slurm

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// NodePower asks for one node to be powered down (Up false) or up, through
// Slurm's power saving (node state POWER_DOWN / POWER_UP).
type NodePower struct {
	Node string `json:"node"`
	Up   bool   `json:"up"`
}

// PowerOptions control ApplyPower.
type PowerOptions struct {
	// DryRun checks every change against the nodes' states but sends
	// nothing.
	DryRun bool
	// MaxNodes caps the nodes written per call (0: none); the rest are
	// held back.
	MaxNodes int
}

// PowerResult is the outcome for one node: the state asked for
// (POWER_DOWN or POWER_UP), what became of it and why.
type PowerResult struct {
	Node    string         `json:"node"`
	State   string         `json:"state"`
	Outcome decide.Outcome `json:"outcome"`
	Detail  string         `json:"detail,omitempty"`
	Err     error          `json:"-"`
}

// powerReadBack bounds how long ApplyPower waits for slurmctld to show a
// written power state.
const powerReadBack = 5 * time.Second

// ApplyPower writes node power states, the only writer of node states as
// Apply is of jobs. The nodes are read first; each change passes
// decide.CheckPower (a node a job holds is never powered down; a node
// already in the state is left alone) and the MaxNodes cap, then is
// written and read back (the node shows a power-down or power-up state).
// Slurm then runs its SuspendProgram or ResumeProgram. Per-node problems
// are results; the error is for "could not apply at all". Slurm refuses
// POWER_DOWN unless power saving is configured (SuspendProgram,
// ResumeProgram).
func (c *Client) ApplyPower(ctx context.Context, changes []NodePower, opts PowerOptions) ([]PowerResult, error) {
	nodes, err := c.api.nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply power: %w", err)
	}
	byName := map[string]planner.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	out := make([]PowerResult, 0, len(changes))
	written := 0
	for _, ch := range changes {
		r := PowerResult{Node: ch.Node, State: powerState(ch.Up)}
		n, ok := byName[ch.Node]
		switch o, why := decide.CheckPower(n, ch.Up); {
		case !ok:
			r.Outcome, r.Detail = decide.SkippedGone, "slurmctld knows no such node"
		case o != "":
			r.Outcome, r.Detail = o, why
		case written >= opts.MaxNodes:
			r.Outcome, r.Detail = decide.Held, fmt.Sprintf("at most %d nodes per run", opts.MaxNodes)
		case opts.DryRun:
			r.Outcome = decide.DryRun
			written++
		default:
			written++
			r = c.powerOne(ctx, r, ch.Up)
		}
		c.log.Debug().Str("node", r.Node).Str("state", r.State).Str("outcome", string(r.Outcome)).Str("detail", r.Detail).
			Msg("apply node power")
		out = append(out, r)
	}
	return out, nil
}

func powerState(up bool) string {
	if up {
		return "POWER_UP"
	}
	return "POWER_DOWN"
}

// powerOne writes one node's power state and reads it back.
func (c *Client) powerOne(ctx context.Context, r PowerResult, up bool) PowerResult {
	if err := c.api.setNodeState(ctx, r.Node, r.State); err != nil {
		r.Outcome, r.Detail, r.Err = decide.Failed, err.Error(), err
		return r
	}
	want := []string{"POWER_DOWN", "POWERING_DOWN", "POWERED_DOWN"}
	if up {
		want = []string{"POWER_UP", "POWERING_UP"}
	}
	deadline := c.now().Add(powerReadBack)
	for {
		nodes, err := c.api.nodes(ctx)
		if err != nil {
			r.Outcome, r.Detail, r.Err = decide.Failed, "read back: "+err.Error(), err
			return r
		}
		for _, n := range nodes {
			if n.Name != r.Node {
				continue
			}
			done := slices.ContainsFunc(n.State, func(s string) bool { return slices.Contains(want, s) })
			if up && !slices.Contains(n.State, "POWERED_DOWN") && !slices.Contains(n.State, "POWERING_DOWN") {
				done = true // already back
			}
			if done {
				r.Outcome = decide.Applied
				return r
			}
			if !c.now().Before(deadline) {
				r.Outcome, r.Detail = decide.Failed, fmt.Sprintf("written, but the node shows %v", n.State)
				return r
			}
		}
		select {
		case <-ctx.Done():
			r.Outcome, r.Detail, r.Err = decide.Failed, "read back: "+ctx.Err().Error(), ctx.Err()
			return r
		case <-time.After(200 * time.Millisecond):
		}
	}
}
