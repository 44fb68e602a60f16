package report

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/slurm"
)

// powerNow is 12:35 UTC; with 10-minute intervals and one hour of history
// the series has the intervals 11:30 .. 12:30.
var powerNow = time.Date(2026, 11, 20, 12, 35, 0, 0, time.UTC)

func ptr(v int) *int { return &v }

// smallArgs: one spare node, power down one at a time, forecast the
// maximum of the last 3 intervals, 500 W per idle node.
func smallArgs() PowerArgs {
	return PowerArgs{Forecast: "recent-max:3", Step: 10 * time.Minute, SuspendTime: 30 * time.Minute,
		ResumeTimeout: 10 * time.Minute, IdleWatts: 500, Buffer: ptr(1), MinDecrease: ptr(1)}
}

// powerSource: n1 busy throughout, n2 since 12:00, n4 busy 12:10–12:20, n3
// last busy at 10:00, n5 never, n6 silent since 11:00 (off). Busy nodes per
// interval: 1 1 1 2 3 2 2.
func powerSource() *reporttest.Source {
	at := func(h, m int) time.Time { return time.Date(2026, 11, 20, h, m, 0, 0, time.UTC) }
	var act []db.NodeBusy
	for m := 0; m <= 60; m += 10 {
		act = append(act, db.NodeBusy{Host: "n1", Bucket: at(11, 30).Add(time.Duration(m) * time.Minute), BusyGPUs: 4})
	}
	for m := 0; m <= 30; m += 10 {
		act = append(act, db.NodeBusy{Host: "n2", Bucket: at(12, m), BusyGPUs: 2})
	}
	act = append(act, db.NodeBusy{Host: "n4", Bucket: at(12, 10), BusyGPUs: 1})
	return &reporttest.Source{Activity: act, Inventory: []db.NodeState{
		{Host: "n1", GPUs: 4, LastSeen: powerNow, LastBusy: powerNow, Busy: true},
		{Host: "n2", GPUs: 4, LastSeen: powerNow, LastBusy: powerNow, Busy: true},
		{Host: "n3", GPUs: 4, LastSeen: powerNow, LastBusy: at(10, 0)},
		{Host: "n4", GPUs: 4, LastSeen: powerNow, LastBusy: at(12, 20)},
		{Host: "n5", GPUs: 4, LastSeen: powerNow},
		{Host: "n6", GPUs: 4, LastSeen: at(11, 0), LastBusy: at(9, 0)},
	}}
}

func TestPower(t *testing.T) {
	opts := func(mode OutputMode) PowerOptions {
		return PowerOptions{Args: smallArgs(), Now: powerNow, History: time.Hour, SeenWithin: 5 * time.Minute,
			Loc: time.UTC, Mode: mode}
	}
	// The recent peak is 3 busy nodes: keep 4 on. Of the two spare nodes
	// idle for 30 minutes (n3, n5; n4 only 15), the longest idle goes. The
	// forecast never needs it back within a day: 24 h × 0.5 kW.
	tests := []struct {
		name string
		mode OutputMode
		want string
	}{
		{"parsable", parsable, "Node|Action|IdleFor|WakeBy|Saved(kWh)\nn1|busy|||\nn2|busy|||\n" +
			"n3|power_down|02:35:00|on-demand|12.00\nn4|keep|00:15:00||\nn5|keep|01:05:00||\nn6|off|||\n"},
		{"table with the summary", withFormat(OutputMode{}, "Node,Action"), "" +
			"Node     Action\n---- ----------\n  n1       busy\n  n2       busy\n  n3 power_down\n  n4       keep\n" +
			"  n5       keep\n  n6        off\n\n" +
			"Busy 2 of 6 nodes, 5 powered. Forecast 3 busy (recent-max:3, rule margin), keep 4 on (1 spare).\n" +
			"Power down 1 now: 0.50 kW less, 12.00 kWh until needed again (looking 1-00:00:00 ahead; " +
			"on-demand: Slurm resumes the node when a job needs it).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := powerSource()
			var out strings.Builder
			n := 0
			if err := Power(context.Background(), &out, opens(src, &n), opts(tt.mode)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			want := []any{reporttest.InventoryQuery{At: powerNow, Since: powerNow.Add(-65 * time.Minute)},
				reporttest.ActivityQuery{From: powerNow.Add(-65 * time.Minute), To: powerNow, Step: 10 * time.Minute}}
			if diff := cmp.Diff(want, src.Queries()); diff != "" || n != 1 {
				t.Errorf("opened %d times; queries (-want +got):\n%s", n, diff)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		var out strings.Builder
		n := 0
		if err := Power(context.Background(), &out, opens(powerSource(), &n), opts(OutputMode{JSON: true})); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Busy, Powered, Target, PowerDown int
			SavedW                           float64 `json:"saved_w"`
			Nodes                            []struct{ Name, Action string }
		}
		if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Busy != 2 || doc.Powered != 5 || doc.Target != 4 || doc.SavedW != 500 || len(doc.Nodes) != 6 ||
			doc.Nodes[2].Action != "power_down" {
			t.Errorf("json: %+v", doc)
		}
	})
}

func TestPowerRefuses(t *testing.T) {
	base := PowerOptions{Args: smallArgs(), Now: powerNow, History: time.Hour, Loc: time.UTC}
	with := func(f func(*PowerOptions)) PowerOptions { o := base; f(&o); return o }
	tests := []struct {
		name      string
		o         PowerOptions
		src       *reporttest.Source
		want      string
		input     bool // an InputError, before the source is opened
		wantOpens int
	}{
		{"oracle", with(func(o *PowerOptions) { o.Args.Forecast = "oracle" }), powerSource(), "only with --replay", true, 0},
		{"bad forecaster", with(func(o *PowerOptions) { o.Args.Forecast = "arima" }), powerSource(), "--forecast", true, 0},
		{"bad preset", with(func(o *PowerOptions) { o.Args.Preset = "mars" }), powerSource(), "--preset", true, 0},
		{"bad rule", with(func(o *PowerOptions) { o.Args.Rule = "greedy" }), powerSource(), `rule "greedy"`, true, 0},
		{"short history", with(func(o *PowerOptions) { o.History = time.Minute }), powerSource(), "--history", true, 0},
		{"bad format", with(func(o *PowerOptions) { o.Mode.Format = "Node,Watts" }), powerSource(), `unknown field "Watts"`, true, 0},
		{"no nodes", base, &reporttest.Source{}, "no node known", false, 1},
		{"database down", base, &reporttest.Source{Err: errors.New("database unavailable")}, "database unavailable", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			err := Power(context.Background(), &strings.Builder{}, opens(tt.src, &n), tt.o)
			var in *InputError
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &in) != tt.input || n != tt.wantOpens {
				t.Errorf("err = %v (input error %v, opened %d), want one containing %q (input error %v, opened %d)",
					err, errors.As(err, &in), n, tt.want, tt.input, tt.wantOpens)
			}
		})
	}
}

func TestPowerArgs(t *testing.T) {
	a := PowerArgs{Preset: "venus", Step: 10 * time.Minute, IdleWatts: 700, Keep: ptr(3)}
	cfg, err := a.Config()
	if err != nil {
		t.Fatal(err)
	}
	// The preset's parameters, the flags' durations and power, the
	// overridden count.
	if cfg.Rule != "helios" || cfg.History != 3 || cfg.HistThreshold != 0.5 || cfg.MinDecrease != 2 || cfg.Buffer != 5 ||
		cfg.Keep != 3 || cfg.IdleWatts != 700 || cfg.SuspendTime != 0 {
		t.Errorf("venus preset with keep 3: %+v", cfg)
	}
	fc, err := a.forecaster(cfg, nil, false)
	if err != nil || fc.Name() != "seasonal:144" {
		t.Errorf("helios default forecaster: %v, %v", fc, err)
	}
	cfg, err = PowerArgs{Rule: "helios", Step: 10 * time.Minute}.Config()
	if err != nil || cfg.History != 6 || cfg.Future != 18 {
		t.Errorf("helios without a preset takes Earth's trend parameters: %+v, %v", cfg, err)
	}
}

func TestPowerWindow(t *testing.T) {
	loc, from, to, err := PowerWindow("2017-12-01", "2017-12-15T12:00", "UTC", powerNow, true)
	if err != nil || loc != time.UTC || !from.Equal(time.Date(2017, 12, 1, 0, 0, 0, 0, time.UTC)) ||
		!to.Equal(time.Date(2017, 12, 15, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("window: %v %v %v %v", loc, from, to, err)
	}
	if _, from, to, err := PowerWindow("", "", "UTC", powerNow, true); err != nil || !from.IsZero() || !to.IsZero() {
		t.Errorf("no window: %v %v %v", from, to, err)
	}
	var in *InputError
	if _, _, _, err := PowerWindow("2017-12-01", "", "UTC", powerNow, false); !errors.As(err, &in) {
		t.Errorf("-S without --replay: %v, want an InputError", err)
	}
	if _, _, _, err := PowerWindow("someday", "", "UTC", powerNow, true); !errors.As(err, &in) {
		t.Errorf("bad -S: %v, want an InputError", err)
	}
}

// peakCSV is 2 2 5 5 1 1 1 busy of 8 nodes from 2026-11-20 00:00: with one
// spare and the maximum of 2 intervals, 3 nodes wake on the peak (2 short)
// and 4 go down when it left the window; 28 node-intervals off at 600 W.
const peakCSV = "time_s,time,busy_nodes,total_nodes\n" +
	"0,2026-11-20 00:00:00,2,8\n600,2026-11-20 00:10:00,2,8\n1200,2026-11-20 00:20:00,5,8\n" +
	"1800,2026-11-20 00:30:00,5,8\n2400,2026-11-20 00:40:00,1,8\n3000,2026-11-20 00:50:00,1,8\n3600,2026-11-20 01:00:00,1,8\n"

func TestPowerReplay(t *testing.T) {
	args := PowerArgs{Forecast: "recent-max:2", Step: 10 * time.Minute, IdleWatts: 600, Buffer: ptr(1), Horizon: ptr(1),
		Keep: ptr(0), MinDecrease: ptr(1)}
	tests := []struct {
		name string
		o    ReplayOptions
		want string
	}{
		{"summary", ReplayOptions{Args: args, Loc: time.UTC, Mode: parsable}, "" +
			"Series|Rule|Forecast|Start|Days|Nodes|MeanBusy|UtilBefore(%)|UtilAfter(%)|Gain(pts)|MeanOff|Saved(kWh)|" +
			"Changes/day|Ups|Downs|ShortIntervals|MaxShort|ShortNodeh\n" +
			"peak.csv|margin|recent-max:2|2026-11-20T00:00|0.0|8|2.4|30.4|59.5|29.2|4.0|2.8|41.1|3|4|1|2|0.3\n"},
		{"intervals", ReplayOptions{Args: args, Loc: time.UTC, Mode: withFormat(bare, "Time,Busy,Ready,Powered,Up,Down,Short,SavedKWh"),
			Intervals: true}, "" +
			"2026-11-20T00:00|2|3|3|0|0|0|0.50\n2026-11-20T00:10|2|3|3|0|0|0|0.50\n2026-11-20T00:20|5|3|6|3|0|2|0.20\n" +
			"2026-11-20T00:30|5|6|6|0|0|0|0.20\n2026-11-20T00:40|1|6|6|0|0|0|0.20\n2026-11-20T00:50|1|6|2|0|4|0|0.60\n" +
			"2026-11-20T01:00|1|2|2|0|0|0|0.60\n"},
		{
			// From 00:40 after 40 minutes of warm-up: the advisor enters the
			// window with the 6 nodes the peak woke.
			"window with warm-up", ReplayOptions{Args: args, Loc: time.UTC, Mode: withFormat(bare, "Start,Days,PowerDowns,SavedKWh"),
				From: time.Date(2026, 11, 20, 0, 40, 0, 0, time.UTC), Warmup: time.Hour}, "2026-11-20T00:40|0.0|4|1.4\n"},
		{
			// Without warm-up it starts cold, at busy + 1 nodes.
			"window without warm-up", ReplayOptions{Args: args, Loc: time.UTC, Mode: withFormat(bare, "Start,PowerDowns,SavedKWh"),
				From: time.Date(2026, 11, 20, 0, 40, 0, 0, time.UTC)}, "2026-11-20T00:40|0|1.8\n"},
		{"oracle wakes before the peak", ReplayOptions{Args: func() PowerArgs { a := args; a.Forecast = "oracle"; return a }(),
			Loc: time.UTC, Mode: withFormat(bare, "Forecast,ShortIntervals")}, "oracle|0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if err := PowerReplay(&out, strings.NewReader(peakCSV), "peak.csv", tt.o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		var out strings.Builder
		if err := PowerReplay(&out, strings.NewReader(peakCSV), "peak.csv",
			ReplayOptions{Args: args, Loc: time.UTC, Mode: OutputMode{JSON: true}}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Series  string
			Summary struct {
				PowerDowns int `json:"power_downs"`
			}
			Intervals []any
		}
		if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Series != "peak.csv" || doc.Summary.PowerDowns != 4 || doc.Intervals != nil {
			t.Errorf("json without --intervals: %+v", doc)
		}
	})
}

func TestPowerReplayRefuses(t *testing.T) {
	args := PowerArgs{Step: 10 * time.Minute, IdleWatts: 500}
	tests := []struct {
		name, csv string
		o         ReplayOptions
		want      string
	}{
		{"unknown columns", "time_s,jobs\n0,1\n", ReplayOptions{Args: args}, "unknown columns"},
		{"empty window", peakCSV, ReplayOptions{Args: args, From: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}, "no interval in the window"},
		{"step mismatch", peakCSV, ReplayOptions{Args: PowerArgs{Step: time.Hour, IdleWatts: 500}}, "configured for 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := PowerReplay(&strings.Builder{}, strings.NewReader(tt.csv), "x.csv", tt.o)
			var in *InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want an InputError containing %q", err, tt.want)
			}
		})
	}
}

// fakeApplier records the changes asked for and applies them all.
type fakeApplier struct {
	got  []slurm.NodePower
	opts slurm.PowerOptions
}

func (f *fakeApplier) ApplyPower(_ context.Context, ch []slurm.NodePower, o slurm.PowerOptions) ([]slurm.PowerResult, error) {
	f.got, f.opts = ch, o
	out := make([]slurm.PowerResult, len(ch))
	for i, c := range ch {
		out[i] = slurm.PowerResult{Node: c.Node, State: "POWER_DOWN", Outcome: decide.Applied}
	}
	return out, nil
}

func TestPowerApply(t *testing.T) {
	fa := &fakeApplier{}
	connects := 0
	o := PowerOptions{Args: smallArgs(), Now: powerNow, History: time.Hour, SeenWithin: 5 * time.Minute, Loc: time.UTC,
		Mode: withFormat(parsable, "Node,Action"), ApplyMax: 3, DryRun: true,
		Apply: func() (PowerApplier, error) { connects++; return fa, nil }}
	var out strings.Builder
	n := 0
	if err := Power(context.Background(), &out, opens(powerSource(), &n), o); err != nil {
		t.Fatal(err)
	}
	want := "Node|Action\nn1|busy\nn2|busy\nn3|power_down\nn4|keep\nn5|keep\nn6|off\n" +
		"Node|State|Outcome|Detail\nn3|POWER_DOWN|applied|\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]slurm.NodePower{{Node: "n3"}}, fa.got); diff != "" || fa.opts != (slurm.PowerOptions{DryRun: true, MaxNodes: 3}) || connects != 1 {
		t.Errorf("connected %d times, options %+v, changes (-want +got):\n%s", connects, fa.opts, diff)
	}

	// Nothing to change (one spare node is not worth it): Slurm is not
	// even contacted.
	o.Args.MinDecrease = ptr(3)
	connects = 0
	if err := Power(context.Background(), &strings.Builder{}, opens(powerSource(), &n), o); err != nil || connects != 0 {
		t.Errorf("nothing to apply: connected %d times, %v", connects, err)
	}

	o.Args.MinDecrease = ptr(1)
	o.Apply = func() (PowerApplier, error) { return nil, errors.New("connect to slurmrestd: refused") }
	if err := Power(context.Background(), &strings.Builder{}, opens(powerSource(), &n), o); err == nil ||
		!strings.Contains(err.Error(), "refused") {
		t.Errorf("connection error: %v", err)
	}
}
