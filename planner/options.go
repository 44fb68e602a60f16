package planner

import (
	"fmt"
	"sort"
	"time"
)

// Predictor estimates how long a job runs. Production uses history
// (QSSF-style) with a time-limit fallback; the simulator may pass an oracle
// (labelled as such) or a noisy estimator. Implementations must be pure and
// deterministic.
type Predictor interface {
	// Predict returns the expected run time of job j on gpus GPUs, and
	// false when it has no estimate.
	Predict(j *Job, gpus int) (time.Duration, bool)
}

// PredictorFunc adapts a function to Predictor.
type PredictorFunc func(j *Job, gpus int) (time.Duration, bool)

// Predict implements Predictor.
func (f PredictorFunc) Predict(j *Job, gpus int) (time.Duration, bool) { return f(j, gpus) }

// Options configure every policy. The zero value is usable: defaults are
// documented per field and filled by withDefaults.
type Options struct {
	// Predictor estimates durations of jobs without a model hint (and of
	// any job when the policy needs the oracle). nil = time-limit fallback.
	Predictor Predictor
	// GPUSpeed maps a GPU type (Slurm GRES type, lower case) to a speed
	// factor against the reference GPU of the catalog profiles (1.0).
	// Unknown types use 1.0.
	GPUSpeed map[string]float64
	// EnergyWeight (λ_E, per kWh-equivalent seconds) and TardinessWeight
	// scale the energy and deadline terms of SMD's objective; 0 by default.
	EnergyWeight    float64
	TardinessWeight float64
	// Interval is the plan cycle length, used for the cost of waiting a
	// cycle. Default 60 s.
	Interval time.Duration
	// PriorityBase and PriorityStep map start ranks to Slurm priorities:
	// rank r gets PriorityBase + (N-r)·PriorityStep. Defaults 100000, 10.
	PriorityBase int64
	PriorityStep int64
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = 60 * time.Second
	}
	if o.PriorityBase <= 0 {
		o.PriorityBase = 100000
	}
	if o.PriorityStep <= 0 {
		o.PriorityStep = 10
	}
	return o
}

// Validate reports the first invalid option, naming the field.
func (o Options) Validate() error {
	for t, f := range o.GPUSpeed {
		if f <= 0 {
			return fmt.Errorf("gpu speed factor for %q is %v: must be > 0", t, f)
		}
	}
	if o.EnergyWeight < 0 || o.TardinessWeight < 0 {
		return fmt.Errorf("energy and tardiness weights must be ≥ 0")
	}
	return nil
}

// constructor builds a policy from options.
type constructor func(Options) (Policy, error)

// registry maps policy names (the --policy flag values) to constructors.
// Policies add themselves here, one line each.
var registry = map[string]constructor{}

// NewPolicy returns the named policy ("fifo", "sjf", "qssf", "tiresias",
// "optimus", "smd", ...).
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
