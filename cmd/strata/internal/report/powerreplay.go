package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/planner/power"
)

// ReplayOptions say how to replay a node series through the advisor.
type ReplayOptions struct {
	Args PowerArgs
	Read power.ReadOptions
	// From and To cut the series to the intervals starting in [From, To)
	// (zero: open). Up to Warmup before From are replayed first and left
	// out of the figures, so that the advisor starts from the state (and
	// the forecaster from the history) it would have had.
	From, To time.Time
	Warmup   time.Duration
	// Intervals prints one row per interval instead of the summary.
	Intervals bool
	Loc       *time.Location
	Mode      OutputMode
}

// replayOut is the replay's summary row (and JSON document).
type replayOut struct {
	power.Result
	// Start is the first interval's time.
	Start time.Time `json:"start"`
	// Warmup counts the intervals replayed before Start, not summarized.
	Warmup int `json:"warmup_intervals"`
	// Filled counts the intervals missing from the file, filled with the
	// one before.
	Filled int `json:"filled_intervals"`
}

// PowerReplayFile replays the node series in the file at path (named by
// its base name in the output); a file that cannot be opened is an
// InputError.
func PowerReplayFile(w io.Writer, path string, o ReplayOptions) error {
	if IsFormatHelp(o.Mode.Format) {
		if o.Intervals {
			return WriteFieldHelp(w, intervalFields(o.Loc))
		}
		return WriteFieldHelp(w, replayFields(o.Loc))
	}
	f, err := os.Open(path)
	if err != nil {
		return inputError(fmt.Errorf("--replay: %w", err))
	}
	defer f.Close()
	return PowerReplay(w, f, filepath.Base(path), o)
}

// PowerReplay runs the advisor over the node series in r (named name) and
// prints the summary, or every interval.
func PowerReplay(w io.Writer, r io.Reader, name string, o ReplayOptions) error {
	cfg, err := o.Args.Config()
	if err != nil {
		return err
	}
	s, filled, err := power.ReadSeries(r, name, o.Read)
	if err != nil {
		return inputError(err)
	}
	warm := 0
	if !o.From.IsZero() || !o.To.IsZero() {
		in := s.Window(o.From, o.To)
		if in.Len() == 0 {
			return inputError(fmt.Errorf("%s: no interval in the window", name))
		}
		if !o.From.IsZero() && o.Warmup > 0 {
			s = s.Window(o.From.Add(-o.Warmup), o.To)
			warm = s.Len() - in.Len()
		} else {
			s = in
		}
	}
	busy := make([]float64, s.Len())
	for i, b := range s.Busy {
		busy[i] = float64(b)
	}
	fc, err := o.Args.forecaster(cfg, busy, true)
	if err != nil {
		return err
	}
	res, err := power.Replay(s, cfg, fc)
	if err != nil {
		return inputError(err)
	}
	res = res.From(warm)
	out := replayOut{Result: res, Start: s.Time(warm), Warmup: warm, Filled: filled}
	if !o.Intervals {
		out.Intervals = nil
	}
	if o.Mode.JSON {
		return WriteJSON(w, out)
	}
	if o.Intervals {
		cols, err := SelectFields(intervalFields(o.Loc), o.Mode.Format,
			[]string{"Time", "Total", "Busy", "Forecast", "Target", "Ready", "Powered", "Off", "Up", "Down", "Short", "SavedKWh"})
		if err != nil {
			return inputError(err)
		}
		return WriteTable(w, cols, res.Intervals, o.Mode)
	}
	cols, err := SelectFields(replayFields(o.Loc), o.Mode.Format, []string{"Series", "Rule", "Forecast", "Start", "Days",
		"Nodes", "MeanBusy", "UtilBefore", "UtilAfter", "Gain", "MeanOff", "SavedKWh", "ChangesPerDay",
		"PowerUps", "PowerDowns", "ShortIntervals", "MaxShort", "ShortNodeHours"})
	if err != nil {
		return inputError(err)
	}
	if err := WriteTable(w, cols, []replayOut{out}, o.Mode); err != nil {
		return err
	}
	if filled > 0 && !(o.Mode.Parsable || o.Mode.Trailing || o.Mode.CSV || o.Mode.NoHeader) {
		_, err = fmt.Fprintf(w, "\n%d intervals missing from %s were filled with the one before.\n", filled, name)
	}
	return err
}

func replayFields(loc *time.Location) []Field[replayOut] {
	f1 := func(v float64) string { return FmtFloat(v, 1) }
	pct := func(v float64) string { return FmtFloat(100*v, 1) }
	return []Field[replayOut]{
		{"Series", "Series", func(r replayOut) string { return r.Series }},
		{"Rule", "Rule", func(r replayOut) string { return string(r.Config.Rule) }},
		{"Forecast", "Forecast", func(r replayOut) string { return r.Forecaster }},
		{"Start", "Start", func(r replayOut) string { return r.Start.In(loc).Format("2006-01-02T15:04") }},
		{"Days", "Days", func(r replayOut) string { return f1(r.Summary.Days) }},
		{"Nodes", "Nodes", func(r replayOut) string { return strconv.Itoa(r.Summary.Nodes) }},
		{"MeanBusy", "MeanBusy", func(r replayOut) string { return f1(r.Summary.MeanBusy) }},
		{"UtilBefore", "UtilBefore(%)", func(r replayOut) string { return pct(r.Summary.UtilBefore) }},
		{"UtilAfter", "UtilAfter(%)", func(r replayOut) string { return pct(r.Summary.UtilAfter) }},
		{"Gain", "Gain(pts)", func(r replayOut) string { return pct(r.Summary.GainPoints) }},
		{"MeanOff", "MeanOff", func(r replayOut) string { return f1(r.Summary.MeanOff) }},
		{"OffNodeHours", "OffNodeh", func(r replayOut) string { return f1(r.Summary.OffNodeHours) }},
		{"IdleAvoided", "IdleAvoided(%)", func(r replayOut) string {
			if r.Summary.IdleNodeHours == 0 {
				return "0.0"
			}
			return pct(r.Summary.OffNodeHours / r.Summary.IdleNodeHours)
		}},
		{"SavedKWh", "Saved(kWh)", func(r replayOut) string { return FmtFloat(r.Summary.SavedKWh, 1) }},
		{"ChangesPerDay", "Changes/day", func(r replayOut) string { return f1(r.Summary.ChangesPerDay) }},
		{"PowerUps", "Ups", func(r replayOut) string { return strconv.Itoa(r.Summary.PowerUps) }},
		{"PowerDowns", "Downs", func(r replayOut) string { return strconv.Itoa(r.Summary.PowerDowns) }},
		{"ShortIntervals", "ShortIntervals", func(r replayOut) string { return strconv.Itoa(r.Summary.ShortIntervals) }},
		{"ShortPct", "Short(%)", func(r replayOut) string {
			return pct(float64(r.Summary.ShortIntervals) / float64(max(r.Summary.Intervals, 1)))
		}},
		{"MaxShort", "MaxShort", func(r replayOut) string { return strconv.Itoa(r.Summary.MaxShort) }},
		{"ShortNodeHours", "ShortNodeh", func(r replayOut) string { return f1(r.Summary.ShortNodeHours) }},
	}
}

func intervalFields(loc *time.Location) []Field[power.Interval] {
	itoa := strconv.Itoa
	return []Field[power.Interval]{
		{"Time", "Time", func(r power.Interval) string { return r.Time.In(loc).Format("2006-01-02T15:04") }},
		{"Total", "Total", func(r power.Interval) string { return itoa(r.Total) }},
		{"Busy", "Busy", func(r power.Interval) string { return itoa(r.Busy) }},
		{"Forecast", "Forecast", func(r power.Interval) string { return FmtFloat(r.Forecast, 1) }},
		{"Target", "Target", func(r power.Interval) string { return itoa(r.Target) }},
		{"Ready", "Ready", func(r power.Interval) string { return itoa(r.Ready) }},
		{"Powered", "Powered", func(r power.Interval) string { return itoa(r.Powered) }},
		{"Off", "Off", func(r power.Interval) string { return itoa(r.Off) }},
		{"Up", "Up", func(r power.Interval) string { return itoa(r.Up) }},
		{"Down", "Down", func(r power.Interval) string { return itoa(r.Down) }},
		{"Short", "Short", func(r power.Interval) string { return itoa(r.Short) }},
		{"SavedKWh", "Saved(kWh)", func(r power.Interval) string { return FmtFloat(r.SavedWh/1000, 2) }},
	}
}
