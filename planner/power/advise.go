package power

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Node is one node as the advisor sees it now.
type Node struct {
	Name string `json:"name"`
	// Busy: a job holds at least one of its GPUs now.
	Busy bool `json:"busy"`
	// LastBusy is when a job last held one of its GPUs (zero: not within
	// the history given).
	LastBusy time.Time `json:"last_busy,omitzero"`
	// Powered: the node reports (draws power); false for a node already
	// powered down or unreachable.
	Powered bool `json:"powered"`
}

// Actions of a node in an Advice.
const (
	ActionBusy      = "busy"       // runs a job: stays on
	ActionKeep      = "keep"       // idle, kept on as a spare or not idle long enough
	ActionPowerDown = "power_down" // idle for SuspendTime and not needed: power it down
	ActionOff       = "off"        // already off, stays off
	ActionPowerUp   = "power_up"   // off, needed: wake it
)

// NodeAdvice is the advice for one node.
type NodeAdvice struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	// IdleFor is how long an idle node has been idle (since LastBusy, or
	// since the history's start when it was never busy in it).
	IdleFor time.Duration `json:"idle_for_ns"`
	// WakeBy is, for a node to power down, when the forecast needs it back
	// minus ResumeTimeout (zero: not within WakeScan; Slurm resumes it when
	// a job is scheduled on it).
	WakeBy time.Time `json:"wake_by,omitzero"`
	// SavedKWh is what powering it down saves until WakeBy (or over
	// WakeScan).
	SavedKWh float64 `json:"saved_kwh"`
}

// Advice is what to do now.
type Advice struct {
	Now        time.Time `json:"now"`
	Forecaster string    `json:"forecaster"`
	Config     Config    `json:"config"`
	Total      int       `json:"total"`
	Busy       int       `json:"busy"`
	Powered    int       `json:"powered"`
	// Forecast is the figure the rule used (see Interval.Forecast); Target
	// the nodes it wants powered.
	Forecast float64 `json:"forecast"`
	Target   int     `json:"target"`
	// PowerDown and PowerUp count the nodes to change now; SavedW is the
	// power the advice saves at once, SavedKWh until the nodes are needed
	// again (at most WakeScan).
	PowerDown int           `json:"power_down"`
	PowerUp   int           `json:"power_up"`
	SavedW    float64       `json:"saved_w"`
	SavedKWh  float64       `json:"saved_kwh"`
	WakeScan  time.Duration `json:"wake_scan_ns"`
	Nodes     []NodeAdvice  `json:"nodes"`
}

// WakeScan is how far ahead Advise looks for when powered-down nodes are
// needed again.
const WakeScan = 24 * time.Hour

// Advise decides for named nodes now. history is the busy-node count per
// interval up to now (its last interval is the current one; its last
// value is replaced by the busy nodes counted in nodes). Keep is not
// applied (Advise keeps no memory between runs); every other rule and
// constraint of Replay is.
func Advise(history Series, nodes []Node, now time.Time, cfg Config, fc Forecaster) (Advice, error) {
	if err := cfg.Validate(); err != nil {
		return Advice{}, err
	}
	if history.Len() == 0 {
		return Advice{}, fmt.Errorf("power advice: no history")
	}
	if history.Step != cfg.Step {
		return Advice{}, fmt.Errorf("power advice: history has %s intervals, the advisor is configured for %s", history.Step, cfg.Step)
	}
	ns := slices.Clone(nodes)
	slices.SortFunc(ns, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	a := Advice{Now: now, Forecaster: fc.Name(), Config: cfg, Total: len(ns), WakeScan: WakeScan}
	for _, n := range ns {
		if n.Busy {
			a.Busy++
		}
		if n.Powered || n.Busy {
			a.Powered++
		}
	}
	busy := make([]float64, history.Len())
	for i, b := range history.Busy {
		busy[i] = float64(b)
	}
	i := len(busy) - 1
	busy[i] = float64(a.Busy)
	f := fleet{ready: a.Powered}
	pred := fc.Forecast(busy, max(cfg.lookahead(), cfg.steps(WakeScan)))
	d := target(cfg, &f, busy, i, a.Total, pred[:cfg.lookahead()])
	a.Forecast, a.Target = d.forecast, d.target
	idleSince := func(n Node) time.Time {
		if n.LastBusy.IsZero() {
			return history.Start
		}
		return n.LastBusy
	}
	var spare, off []int // indexes into ns
	for k, n := range ns {
		switch {
		case n.Busy:
		case n.Powered:
			if now.Sub(idleSince(n)) >= cfg.SuspendTime {
				spare = append(spare, k)
			}
		default:
			off = append(off, k)
		}
	}
	// Longest idle first: the least likely to be wanted back.
	slices.SortStableFunc(spare, func(x, y int) int { return idleSince(ns[x]).Compare(idleSince(ns[y])) })
	// Most recently used first: known to work.
	slices.SortStableFunc(off, func(x, y int) int { return idleSince(ns[y]).Compare(idleSince(ns[x])) })
	down, up := 0, 0
	if d.target < a.Powered {
		down = cutDown(cfg, a.Powered-d.target, len(spare))
	} else {
		up = min(d.target-a.Powered, len(off))
	}
	a.Nodes = a.nodeActions(ns, spare[:down], off[:up], pred, idleSince)
	a.PowerDown, a.PowerUp = down, up
	a.SavedW = float64(down) * cfg.IdleWatts
	return a, nil
}

// nodeActions says what to do with each node: power up those of wake,
// power down those of sleep (each with when it is wanted back by the
// forecast pred, and what that saves), keep the rest; it adds the savings
// to a.SavedKWh.
func (a *Advice) nodeActions(ns []Node, sleep, wake []int, pred []float64, idleSince func(Node) time.Time) []NodeAdvice {
	cfg, now, down := a.Config, a.Now, len(sleep)
	act := make([]NodeAdvice, len(ns))
	for k, n := range ns {
		act[k] = NodeAdvice{Name: n.Name, Action: ActionKeep}
		switch {
		case n.Busy:
			act[k].Action = ActionBusy
		case !n.Powered:
			act[k].Action = ActionOff
		default:
			act[k].IdleFor = max(0, now.Sub(idleSince(n)))
		}
	}
	for _, k := range wake {
		act[k].Action = ActionPowerUp
	}
	kept := a.Powered - down
	// The node powered down last (the most recently used of them) is the
	// first wanted back: wake rank r needs demand above kept + r.
	for j, k := range sleep {
		r := down - 1 - j
		act[k].Action = ActionPowerDown
		offFor := time.Duration(len(pred)) * cfg.Step
		for s, p := range pred {
			if ceilInt(p)+cfg.Buffer > kept+r {
				offFor = max(0, time.Duration(s+1)*cfg.Step-cfg.ResumeTimeout)
				act[k].WakeBy = now.Add(offFor)
				break
			}
		}
		act[k].SavedKWh = cfg.IdleWatts * offFor.Hours() / 1000
		a.SavedKWh += act[k].SavedKWh
	}
	return act
}
