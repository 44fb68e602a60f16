package power_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner/power"
)

// stepUp forecasts low for the first At intervals, then high.
type stepUp struct {
	At        int
	Low, High float64
}

func (f stepUp) Forecast(_ []float64, h int) []float64 {
	out := make([]float64, h)
	for k := range out {
		out[k] = f.Low
		if k >= f.At {
			out[k] = f.High
		}
	}
	return out
}

func (stepUp) Name() string { return "step-up" }

func TestAdvise(t *testing.T) {
	now := t0.Add(50 * time.Minute)
	cfg := small()
	cfg.SuspendTime, cfg.ResumeTimeout = 30*time.Minute, 10*time.Minute
	hist := series(6, 2, 2, 2, 2, 2, 2) // t0 .. t0+50m
	// n1, n2 run jobs; n3 idle for 2 h; n4 for 10 min only; n5 never busy in
	// the history (idle since its start, 50 min); n6 already off.
	nodes := []power.Node{
		{Name: "n6", LastBusy: now.Add(-3 * time.Hour)},
		{Name: "n1", Busy: true, Powered: true, LastBusy: now},
		{Name: "n2", Busy: true, Powered: true, LastBusy: now},
		{Name: "n3", Powered: true, LastBusy: now.Add(-2 * time.Hour)},
		{Name: "n4", Powered: true, LastBusy: now.Add(-10 * time.Minute)},
		{Name: "n5", Powered: true},
	}
	day := 0.6 * 24 // kWh of one idle node over WakeScan
	tests := []struct {
		name  string
		hist  power.Series
		nodes []power.Node
		cfg   power.Config
		fc    power.Forecaster
		want  power.Advice
	}{
		{
			// Keep busy 2 + 1 spare: two of the three idle nodes go, the
			// longest idle first; n4 has not been idle for SuspendTime.
			name: "power down the longest idle, never within SuspendTime",
			hist: hist, nodes: nodes, cfg: cfg, fc: power.RecentMax{Window: 3},
			want: power.Advice{Total: 6, Busy: 2, Powered: 5, Forecast: 2, Target: 3, PowerDown: 2, SavedW: 1200,
				SavedKWh: 2 * day, Nodes: []power.NodeAdvice{
					{Name: "n1", Action: power.ActionBusy},
					{Name: "n2", Action: power.ActionBusy},
					{Name: "n3", Action: power.ActionPowerDown, IdleFor: 2 * time.Hour, SavedKWh: day},
					{Name: "n4", Action: power.ActionKeep, IdleFor: 10 * time.Minute},
					{Name: "n5", Action: power.ActionPowerDown, IdleFor: 50 * time.Minute, SavedKWh: day},
					{Name: "n6", Action: power.ActionOff},
				}},
		},
		{
			// Demand of 4 from the 4th interval on: the nodes left on (3)
			// fall short then; both are wanted back 40 min from now, woken
			// 10 min before (ResumeTimeout). Off for 30 min: 0.3 kWh each.
			name: "wake-by time from the forecast",
			hist: hist, nodes: nodes, cfg: cfg, fc: stepUp{At: 3, Low: 2, High: 4},
			want: power.Advice{Total: 6, Busy: 2, Powered: 5, Forecast: 2, Target: 3, PowerDown: 2, SavedW: 1200,
				SavedKWh: 0.6, Nodes: []power.NodeAdvice{
					{Name: "n1", Action: power.ActionBusy},
					{Name: "n2", Action: power.ActionBusy},
					{Name: "n3", Action: power.ActionPowerDown, IdleFor: 2 * time.Hour, WakeBy: now.Add(30 * time.Minute), SavedKWh: 0.3},
					{Name: "n4", Action: power.ActionKeep, IdleFor: 10 * time.Minute},
					{Name: "n5", Action: power.ActionPowerDown, IdleFor: 50 * time.Minute, WakeBy: now.Add(30 * time.Minute), SavedKWh: 0.3},
					{Name: "n6", Action: power.ActionOff},
				}},
		},
		{
			// 4 busy + 2 spares = 6 wanted, 5 powered: wake the off node that
			// worked most recently (n7).
			name: "power up the most recently used off node",
			hist: hist,
			nodes: []power.Node{
				{Name: "n1", Busy: true, Powered: true}, {Name: "n2", Busy: true, Powered: true},
				{Name: "n3", Busy: true, Powered: true}, {Name: "n4", Busy: true, Powered: true},
				{Name: "n5", Powered: true, LastBusy: now.Add(-time.Hour)},
				{Name: "n6", LastBusy: now.Add(-3 * time.Hour)}, {Name: "n7", LastBusy: now.Add(-time.Hour)},
			},
			cfg: func() power.Config { c := cfg; c.Buffer = 2; return c }(), fc: power.RecentMax{Window: 1},
			want: power.Advice{Total: 7, Busy: 4, Powered: 5, Forecast: 4, Target: 6, PowerUp: 1, Nodes: []power.NodeAdvice{
				{Name: "n1", Action: power.ActionBusy}, {Name: "n2", Action: power.ActionBusy},
				{Name: "n3", Action: power.ActionBusy}, {Name: "n4", Action: power.ActionBusy},
				{Name: "n5", Action: power.ActionKeep, IdleFor: time.Hour},
				{Name: "n6", Action: power.ActionOff}, {Name: "n7", Action: power.ActionPowerUp},
			}},
		},
		{
			name: "min decrease: one spare node is not worth it",
			hist: hist, nodes: nodes, cfg: func() power.Config { c := cfg; c.MinDecrease = 3; return c }(),
			fc: power.RecentMax{Window: 3},
			want: power.Advice{Total: 6, Busy: 2, Powered: 5, Forecast: 2, Target: 3, Nodes: []power.NodeAdvice{
				{Name: "n1", Action: power.ActionBusy}, {Name: "n2", Action: power.ActionBusy},
				{Name: "n3", Action: power.ActionKeep, IdleFor: 2 * time.Hour},
				{Name: "n4", Action: power.ActionKeep, IdleFor: 10 * time.Minute},
				{Name: "n5", Action: power.ActionKeep, IdleFor: 50 * time.Minute},
				{Name: "n6", Action: power.ActionOff},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := power.Advise(tt.hist, tt.nodes, now, tt.cfg, tt.fc)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Now, want.Forecaster, want.Config, want.WakeScan = now, tt.fc.Name(), tt.cfg, power.WakeScan
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("advice (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAdviseRefuses(t *testing.T) {
	if _, err := power.Advise(series(2), nil, t0, small(), power.DefaultForecaster()); err == nil {
		t.Error("no history: want an error")
	}
	h := series(2, 1)
	h.Step = time.Minute
	if _, err := power.Advise(h, nil, t0, small(), power.DefaultForecaster()); err == nil {
		t.Error("history in 1-minute intervals, advisor in 10: want an error")
	}
}
