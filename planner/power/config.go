package power

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Rule names how the number of nodes kept on is decided.
type Rule string

// The rules; see the package comment.
const (
	RuleMargin Rule = "margin"
	RuleHelios Rule = "helios"
)

// Config is the advisor's configuration. Counts of intervals (History,
// Future, Horizon, Keep) are in units of Step.
type Config struct {
	Rule Rule `json:"rule"`
	// Step is the length of one interval of the series (10 minutes in the
	// Helios and Philly series).
	Step time.Duration `json:"step_ns"`
	// Buffer is the number of spare idle nodes kept on above demand.
	Buffer int `json:"buffer"`
	// Horizon is how many intervals ahead RuleMargin looks at the forecast.
	Horizon int `json:"horizon"`
	// Keep is how many intervals no node is powered down after a wake-up
	// (Helios' keep: damping of on/off cycles).
	Keep int `json:"keep"`
	// MinDecrease is the smallest number of nodes worth powering down at
	// once (Helios' θ_dec).
	MinDecrease int `json:"min_decrease"`
	// History, Future, HistThreshold and FutThreshold are RuleHelios' h, f,
	// θ_hist and θ_fut.
	History       int     `json:"history,omitempty"`
	Future        int     `json:"future,omitempty"`
	HistThreshold float64 `json:"hist_threshold,omitempty"`
	FutThreshold  float64 `json:"fut_threshold,omitempty"`
	// SuspendTime is how long a node must have been idle before it is
	// powered down (Slurm's SuspendTime).
	SuspendTime time.Duration `json:"suspend_time_ns"`
	// ResumeTimeout is how long a woken node takes to serve jobs (boot;
	// Slurm's ResumeTimeout is the upper bound it allows).
	ResumeTimeout time.Duration `json:"resume_timeout_ns"`
	// IdleWatts is the power an idle, powered node draws (what powering it
	// down saves).
	IdleWatts float64 `json:"idle_watts"`
}

// DefaultIdleWatts is the assumed draw of an idle 8-GPU node: 8 × 40 W of
// idle GPUs (the simulator's assumed V100 idle power) plus about 180 W for
// the host. An assumption, not a measurement: give a site's own figure.
const DefaultIdleWatts = 500

// DefaultConfig is RuleMargin with 10-minute intervals: with the default
// forecaster (DefaultForecaster, the maximum of the last 6 hours) over a
// 3-hour horizon, plus 5 spare nodes; 30 minutes idle before a power-down
// (SuspendTime), 10 minutes to boot (ResumeTimeout), no power-down for 2
// hours after a wake-up, at least 5 nodes at a time.
func DefaultConfig() Config {
	return Config{Rule: RuleMargin, Step: 10 * time.Minute, Buffer: 5, Horizon: 18, Keep: 12, MinDecrease: 5,
		SuspendTime: 30 * time.Minute, ResumeTimeout: 10 * time.Minute, IdleWatts: DefaultIdleWatts}
}

// heliosPresets are the per-cluster parameters of the Helios artifact
// (h, f, θ_hist, θ_fut, θ_dec, buffer, keep): CES_Helios.py for the four
// Helios clusters, CES_Philly.py for Philly (HeliosArtifact commit
// 6345d9ff28350018656f307c4aba5f8acebd91a6, "framework/CES Service/").
var heliosPresets = map[string]Config{
	"venus":  {History: 3, Future: 18, HistThreshold: 0.5, FutThreshold: 1, MinDecrease: 2, Buffer: 5, Keep: 12},
	"earth":  {History: 6, Future: 18, HistThreshold: 1, FutThreshold: 1, MinDecrease: 5, Buffer: 5, Keep: 12},
	"saturn": {History: 6, Future: 18, HistThreshold: 1, FutThreshold: 1, MinDecrease: 1, Buffer: 5, Keep: 12},
	"uranus": {History: 3, Future: 18, HistThreshold: 1, FutThreshold: 1, MinDecrease: 1, Buffer: 7, Keep: 12},
	"philly": {History: 2, Future: 30, HistThreshold: 0.1, FutThreshold: 0, MinDecrease: 1, Buffer: 20, Keep: 10},
}

// HeliosPresets lists the names HeliosConfig accepts, sorted.
func HeliosPresets() []string {
	names := make([]string, 0, len(heliosPresets))
	for n := range heliosPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HeliosConfig is RuleHelios with the published parameters of a cluster
// (venus, earth, saturn, uranus, philly) at 10-minute intervals. The
// artifact wakes nodes instantly and has no idle minimum: SuspendTime and
// ResumeTimeout are 0 here, set them to add Slurm's constraints.
func HeliosConfig(cluster string) (Config, error) {
	p, ok := heliosPresets[strings.ToLower(cluster)]
	if !ok {
		return Config{}, fmt.Errorf("helios preset %q: choose one of %s", cluster, strings.Join(HeliosPresets(), ", "))
	}
	p.Rule = RuleHelios
	p.Step = 10 * time.Minute
	p.Horizon = p.Future
	p.IdleWatts = DefaultIdleWatts
	return p, nil
}

// Validate reports the first unusable setting.
func (c Config) Validate() error {
	switch {
	case !slices.Contains([]Rule{RuleMargin, RuleHelios}, c.Rule):
		return fmt.Errorf("power rule %q: choose %s or %s", c.Rule, RuleMargin, RuleHelios)
	case c.Step <= 0:
		return fmt.Errorf("power step %s: must be positive", c.Step)
	case c.Buffer < 0 || c.Keep < 0 || c.MinDecrease < 0 || c.Horizon < 0:
		return fmt.Errorf("power buffer, keep, min decrease and horizon must not be negative")
	case c.SuspendTime < 0 || c.ResumeTimeout < 0:
		return fmt.Errorf("power suspend time and resume timeout must not be negative")
	case c.IdleWatts < 0:
		return fmt.Errorf("power idle watts %g: must not be negative", c.IdleWatts)
	case c.Rule == RuleHelios && (c.History < 1 || c.Future < 1):
		return fmt.Errorf("helios rule: history (%d) and future (%d) must be at least 1 interval", c.History, c.Future)
	}
	return nil
}

// steps is the number of whole intervals d spans, rounded up.
func (c Config) steps(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + c.Step - 1) / c.Step)
}

// lookahead is how many future intervals the rule needs forecast.
func (c Config) lookahead() int {
	if c.Rule == RuleHelios {
		return 2 * c.Future
	}
	return max(c.Horizon, 1)
}
