package planner

import (
	"fmt"
	"sort"
)

// constructor builds a policy from options (already defaulted).
type constructor func(Options) (Policy, error)

// registry maps policy names (the --policy flag values) to constructors.
var registry = map[string]constructor{
	"fifo":     func(o Options) (Policy, error) { return &FIFO{o: o}, nil },
	"edf":      func(o Options) (Policy, error) { return &EDF{o: o}, nil },
	"priority": func(o Options) (Policy, error) { return &PriorityPolicy{o: o}, nil },
	"andreas":  func(o Options) (Policy, error) { return &Andreas{o: o}, nil },
	// andreas-elastic is a simulation what-if: andreas that also re-plans
	// running jobs (stops, restarts, resizes them), as ANDREAS does.
	"andreas-elastic": func(o Options) (Policy, error) { return &Andreas{o: o, elastic: true}, nil },
	"sjf":             func(o Options) (Policy, error) { return &SJF{o: o}, nil },
	"qssf":            func(o Options) (Policy, error) { return &QSSF{o: o}, nil },
	"tiresias":        func(o Options) (Policy, error) { return &Tiresias{o: o}, nil },
	"optimus":         func(o Options) (Policy, error) { return &Optimus{o: o}, nil },
	"smd":             func(o Options) (Policy, error) { return &SMD{o: o}, nil },
	// smd-elastic is a simulation what-if: SMD that may also resize running
	// jobs inside their hint range (Strata never does this on Slurm).
	"smd-elastic": func(o Options) (Policy, error) { return &SMD{o: o, elastic: true}, nil },
}

// NewPolicy returns the named policy (PolicyNames lists them).
func NewPolicy(name string, o Options) (Policy, error) {
	c, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q: choose one of %v", name, PolicyNames())
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("policy %s options: %w", name, err)
	}
	return c(o.withDefaults())
}

// PolicyNames lists the registered policies, sorted.
func PolicyNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
