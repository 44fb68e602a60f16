package report

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner/power"
	"github.com/strata-hpc/strata/slurm"
)

// PowerArgs are the power advisor's settings as given on the command line.
// A nil count keeps the rule's (or the preset's) value.
type PowerArgs struct {
	// Preset is a Helios cluster whose published CES parameters to start
	// from (venus, earth, saturn, uranus, philly); it implies the helios
	// rule unless Rule says otherwise.
	Preset string
	// Rule is margin or helios ("" = margin, or helios with a preset).
	Rule string
	// Forecast names the forecaster (power.ParseForecaster; "" = recent-max
	// for the margin rule, seasonal for the helios rule).
	Forecast                           string
	Step, SuspendTime, ResumeTimeout   time.Duration
	IdleWatts                          float64
	Buffer, Horizon, Keep, MinDecrease *int
}

// Config turns a into the advisor's configuration. Invalid input is an
// InputError.
func (a PowerArgs) Config() (power.Config, error) {
	cfg := power.DefaultConfig()
	if a.Preset != "" {
		var err error
		if cfg, err = power.HeliosConfig(a.Preset); err != nil {
			return cfg, inputError(fmt.Errorf("--preset: %w", err))
		}
	}
	if a.Rule != "" {
		cfg.Rule = power.Rule(a.Rule)
		if cfg.Rule == power.RuleHelios && a.Preset == "" {
			earth, _ := power.HeliosConfig("earth")
			cfg.History, cfg.Future, cfg.HistThreshold, cfg.FutThreshold = earth.History, earth.Future, earth.HistThreshold, earth.FutThreshold
		}
	}
	cfg.Step, cfg.SuspendTime, cfg.ResumeTimeout, cfg.IdleWatts = a.Step, a.SuspendTime, a.ResumeTimeout, a.IdleWatts
	for _, o := range []struct {
		v   *int
		dst *int
	}{{a.Buffer, &cfg.Buffer}, {a.Horizon, &cfg.Horizon}, {a.Keep, &cfg.Keep}, {a.MinDecrease, &cfg.MinDecrease}} {
		if o.v != nil {
			*o.dst = *o.v
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, inputError(err)
	}
	return cfg, nil
}

// forecaster parses a.Forecast for cfg; the oracle (the true future) only
// when the whole series is known (replay).
func (a PowerArgs) forecaster(cfg power.Config, busy []float64, replay bool) (power.Forecaster, error) {
	name := a.Forecast
	if name == "" {
		name = "recent-max"
		if cfg.Rule == power.RuleHelios {
			name = "seasonal"
		}
	}
	if name == "oracle" && !replay {
		return nil, inputError(fmt.Errorf("--forecast oracle knows the future: only with --replay"))
	}
	fc, err := power.ParseForecaster(name, busy)
	if err != nil {
		return nil, inputError(fmt.Errorf("--forecast: %w", err))
	}
	return fc, nil
}

// PowerWindow reads the power report's -S/-E (start and end, replays only;
// empty: the whole series) in the zone tz.
func PowerWindow(start, end, tz string, now time.Time, replay bool) (loc *time.Location, from, to time.Time, err error) {
	if loc, err = LoadZone(tz); err != nil {
		return nil, from, to, inputError(err)
	}
	if !replay && (start != "" || end != "") {
		return nil, from, to, inputError(fmt.Errorf("--starttime and --endtime cut a --replay series; the advice reads --history up to now"))
	}
	if start != "" {
		if from, err = ParseTime(start, now, loc); err != nil {
			return nil, from, to, inputError(fmt.Errorf("--starttime: %w", err))
		}
	}
	if end != "" {
		if to, err = ParseTime(end, now, loc); err != nil {
			return nil, from, to, inputError(fmt.Errorf("--endtime: %w", err))
		}
	}
	return loc, from, to, nil
}

// PowerSource is what the live power advice reads; *db.Store implements
// it.
type PowerSource interface {
	NodeActivity(ctx context.Context, from, to time.Time, step time.Duration) ([]db.NodeBusy, error)
	NodeInventory(ctx context.Context, at, since time.Time) ([]db.NodeState, error)
}

// PowerOptions are the live advice's inputs besides its source.
type PowerOptions struct {
	Args PowerArgs
	Now  time.Time
	// History is how far back the busy-node history reaches.
	History time.Duration
	// SeenWithin: a node whose last sample is older counts as powered
	// down (or unreachable).
	SeenWithin time.Duration
	Loc        *time.Location
	Mode       OutputMode
	// Apply, when set, connects to Slurm and the advice is applied
	// (opt-in): nodes to wake are powered up, then nodes to power down
	// powered down, at most ApplyMax in all; DryRun checks them against
	// Slurm without writing.
	Apply    func() (PowerApplier, error)
	ApplyMax int
	DryRun   bool
}

// PowerApplier writes node power states; *slurm.Client implements it.
type PowerApplier interface {
	ApplyPower(ctx context.Context, changes []slurm.NodePower, opts slurm.PowerOptions) ([]slurm.PowerResult, error)
}

// Power prints which nodes could be powered down now (and which woken),
// from the collector's records: a node is busy in an interval when a job
// held one of its GPUs then. The source is opened once the arguments are
// known to be valid; it must be a PowerSource.
func Power(ctx context.Context, w io.Writer, open Opener, o PowerOptions) error {
	if IsFormatHelp(o.Mode.Format) {
		return WriteFieldHelp(w, powerNodeFields(o.Loc))
	}
	cfg, err := o.Args.Config()
	if err != nil {
		return err
	}
	fc, err := o.Args.forecaster(cfg, nil, false)
	if err != nil {
		return err
	}
	if o.History < cfg.Step {
		return inputError(fmt.Errorf("--history %s: at least one interval (%s)", o.History, cfg.Step))
	}
	if o.Mode.Format != "" {
		if _, err := SelectFields(powerNodeFields(time.UTC), o.Mode.Format, nil); err != nil {
			return inputError(err)
		}
	}
	s, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	src, ok := s.(PowerSource)
	if !ok {
		return fmt.Errorf("report power: this source has no node activity")
	}
	hist, nodes, err := powerHistory(ctx, src, o.Now, o.History, o.SeenWithin, cfg.Step)
	if err != nil {
		return err
	}
	adv, err := power.Advise(hist, nodes, o.Now, cfg, fc)
	if err != nil {
		return err
	}
	var applied []slurm.PowerResult
	if o.Apply != nil {
		if applied, err = applyAdvice(ctx, adv, o); err != nil {
			return err
		}
	}
	if o.Mode.JSON {
		return WriteJSON(w, struct {
			power.Advice
			Applied []slurm.PowerResult `json:"applied,omitempty"`
		}{adv, applied})
	}
	cols, err := SelectFields(powerNodeFields(o.Loc), o.Mode.Format, []string{"Node", "Action", "IdleFor", "WakeBy", "SavedKWh"})
	if err != nil {
		return inputError(err)
	}
	if err := WriteTable(w, cols, adv.Nodes, o.Mode); err != nil {
		return err
	}
	plain := !(o.Mode.Parsable || o.Mode.Trailing || o.Mode.CSV || o.Mode.NoHeader)
	if plain {
		if _, err := io.WriteString(w, adviceSummary(adv)); err != nil {
			return err
		}
	}
	if o.Apply == nil {
		return nil
	}
	if plain {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return WriteTable(w, appliedFields(), applied, OutputMode{Parsable: o.Mode.Parsable, Trailing: o.Mode.Trailing,
		CSV: o.Mode.CSV, NoHeader: o.Mode.NoHeader})
}

// applyAdvice connects to Slurm and writes the advice's power changes:
// wake-ups first, then power-downs.
func applyAdvice(ctx context.Context, adv power.Advice, o PowerOptions) ([]slurm.PowerResult, error) {
	var changes []slurm.NodePower
	for _, want := range []string{power.ActionPowerUp, power.ActionPowerDown} {
		for _, n := range adv.Nodes {
			if n.Action == want {
				changes = append(changes, slurm.NodePower{Node: n.Name, Up: want == power.ActionPowerUp})
			}
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	ap, err := o.Apply()
	if err != nil {
		return nil, err
	}
	return ap.ApplyPower(ctx, changes, slurm.PowerOptions{DryRun: o.DryRun, MaxNodes: o.ApplyMax})
}

func appliedFields() []Selected[slurm.PowerResult] {
	fs := []Field[slurm.PowerResult]{
		{"Node", "Node", func(r slurm.PowerResult) string { return r.Node }},
		{"State", "State", func(r slurm.PowerResult) string { return r.State }},
		{"Outcome", "Outcome", func(r slurm.PowerResult) string { return string(r.Outcome) }},
		{"Detail", "Detail", func(r slurm.PowerResult) string { return r.Detail }},
	}
	out := make([]Selected[slurm.PowerResult], len(fs))
	for i, f := range fs {
		out[i] = Selected[slurm.PowerResult]{Field: f}
	}
	return out
}

// powerHistory builds the busy-node series of the window ending now (one
// interval per step, the last one the current, partial interval) and the
// nodes as they are now.
func powerHistory(ctx context.Context, src PowerSource, now time.Time, history, seenWithin, step time.Duration) (power.Series, []power.Node, error) {
	from := now.Truncate(step).Add(-history.Truncate(step))
	inv, err := src.NodeInventory(ctx, now, from)
	if err != nil {
		return power.Series{}, nil, err
	}
	if len(inv) == 0 {
		return power.Series{}, nil, fmt.Errorf("power advice: no node known: the collector has stored no GPU sample since %s",
			from.Format(time.RFC3339))
	}
	act, err := src.NodeActivity(ctx, from, now, step)
	if err != nil {
		return power.Series{}, nil, err
	}
	n := int(now.Sub(from)/step) + 1
	s := power.Series{Name: "collector", Start: from, Step: step, Busy: make([]int, n), Total: make([]int, n)}
	for _, r := range act {
		if i := int(r.Bucket.Sub(from) / step); r.BusyGPUs > 0 && i >= 0 && i < n {
			s.Busy[i]++ // rows are one per host and interval
		}
	}
	for i := range s.Total {
		s.Total[i] = max(len(inv), s.Busy[i])
	}
	nodes := make([]power.Node, len(inv))
	for i, h := range inv {
		nodes[i] = power.Node{Name: h.Host, Busy: h.Busy, LastBusy: h.LastBusy,
			Powered: !h.LastSeen.Before(now.Add(-seenWithin))}
	}
	return s, nodes, nil
}

func powerNodeFields(loc *time.Location) []Field[power.NodeAdvice] {
	return []Field[power.NodeAdvice]{
		{"Node", "Node", func(r power.NodeAdvice) string { return r.Name }},
		{"Action", "Action", func(r power.NodeAdvice) string { return r.Action }},
		{"IdleFor", "IdleFor", func(r power.NodeAdvice) string {
			if r.Action == power.ActionBusy || r.Action == power.ActionOff || r.Action == power.ActionPowerUp {
				return ""
			}
			return FmtDuration(r.IdleFor.Seconds())
		}},
		{"WakeBy", "WakeBy", func(r power.NodeAdvice) string {
			switch {
			case r.Action != power.ActionPowerDown:
				return ""
			case r.WakeBy.IsZero():
				return "on-demand"
			}
			return r.WakeBy.In(loc).Format("2006-01-02T15:04:05")
		}},
		{"SavedKWh", "Saved(kWh)", func(r power.NodeAdvice) string {
			if r.Action != power.ActionPowerDown {
				return ""
			}
			return FmtFloat(r.SavedKWh, 2)
		}},
	}
}

// adviceSummary is the two lines under the table: the counts, the target
// and what the advice saves.
func adviceSummary(a power.Advice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nBusy %d of %d nodes, %d powered. Forecast %s busy (%s, rule %s), keep %d on (%d spare).\n",
		a.Busy, a.Total, a.Powered, strconv.FormatFloat(a.Forecast, 'f', -1, 64), a.Forecaster, a.Config.Rule,
		a.Target, a.Config.Buffer)
	switch {
	case a.PowerDown > 0:
		fmt.Fprintf(&b, "Power down %d now: %s kW less, %s kWh until needed again (looking %s ahead; "+
			"on-demand: Slurm resumes the node when a job needs it).\n",
			a.PowerDown, FmtFloat(a.SavedW/1000, 2), FmtFloat(a.SavedKWh, 2), FmtDuration(a.WakeScan.Seconds()))
	case a.PowerUp > 0:
		fmt.Fprintf(&b, "Power up %d now: the forecast busy nodes plus the spares exceed the powered ones.\n", a.PowerUp)
	default:
		b.WriteString("Nothing to change now.\n")
	}
	return b.String()
}
