package power_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner/power"
)

var t0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// series builds a 10-minute series of busy counts on total nodes.
func series(total int, busy ...int) power.Series {
	s := power.Series{Name: "test", Start: t0, Step: 10 * time.Minute, Busy: busy, Total: make([]int, len(busy))}
	for i := range s.Total {
		s.Total[i] = total
	}
	return s
}

// small is a margin configuration whose arithmetic is easy to follow: one
// spare node, look one interval ahead, react at once, 600 W per idle node
// (100 Wh per node and interval).
func small() power.Config {
	return power.Config{Rule: power.RuleMargin, Step: 10 * time.Minute, Buffer: 1, Horizon: 1, MinDecrease: 1, IdleWatts: 600}
}

// state is the part of an interval the tests follow.
type state struct{ Ready, Powered, Up, Down, Short int }

func states(ivs []power.Interval) []state {
	out := make([]state, len(ivs))
	for i, iv := range ivs {
		out[i] = state{iv.Ready, iv.Powered, iv.Up, iv.Down, iv.Short}
	}
	return out
}

func TestReplay(t *testing.T) {
	peak := series(8, 2, 2, 5, 5, 1, 1, 1)
	with := func(f func(*power.Config)) power.Config { c := small(); f(&c); return c }
	helios := power.Config{Rule: power.RuleHelios, Step: 10 * time.Minute, Buffer: 1, History: 2, Future: 2,
		HistThreshold: 1, FutThreshold: 1, MinDecrease: 1, IdleWatts: 600}
	tests := []struct {
		name string
		s    power.Series
		cfg  power.Config
		fc   power.Forecaster
		want []state
	}{
		{
			// Start at busy+1; the peak finds 3 ready (2 short) and wakes 3;
			// the recent max (2 intervals) holds them until the peak left
			// the window, then 4 go down at once.
			name: "margin: wake on the peak, power down when it left the window",
			s:    peak, cfg: small(), fc: power.RecentMax{Window: 2},
			want: []state{{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 6, 3, 0, 2}, {6, 6, 0, 0, 0}, {6, 6, 0, 0, 0},
				{6, 2, 0, 4, 0}, {2, 2, 0, 0, 0}},
		},
		{
			// Woken nodes serve two intervals later: the peak is short twice.
			name: "resume timeout: booting nodes draw power but do not serve",
			s:    peak, cfg: with(func(c *power.Config) { c.ResumeTimeout = 20 * time.Minute }), fc: power.RecentMax{Window: 2},
			want: []state{{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 6, 3, 0, 2}, {3, 6, 0, 0, 2}, {6, 6, 0, 0, 0},
				{6, 2, 0, 4, 0}, {2, 2, 0, 0, 0}},
		},
		{
			// With a 1-interval window the advisor wants 4 down right after
			// the peak, but only one node has been idle for 20 minutes.
			name: "suspend time: only nodes idle long enough go down",
			s:    peak, cfg: with(func(c *power.Config) { c.SuspendTime = 20 * time.Minute }), fc: power.RecentMax{Window: 1},
			want: []state{{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 6, 3, 0, 2}, {6, 6, 0, 0, 0}, {6, 5, 0, 1, 0},
				{5, 2, 0, 3, 0}, {2, 2, 0, 0, 0}},
		},
		{
			name: "min decrease: one node is not worth a power-down",
			s:    peak, cfg: with(func(c *power.Config) { c.SuspendTime = 20 * time.Minute; c.MinDecrease = 2 }),
			fc: power.RecentMax{Window: 1},
			want: []state{{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 6, 3, 0, 2}, {6, 6, 0, 0, 0}, {6, 6, 0, 0, 0},
				{6, 2, 0, 4, 0}, {2, 2, 0, 0, 0}},
		},
		{
			name: "keep: no power-down within Keep intervals of a wake-up",
			s:    peak, cfg: with(func(c *power.Config) { c.Keep = 4 }), fc: power.RecentMax{Window: 2},
			want: []state{{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 6, 3, 0, 2}, {6, 6, 0, 0, 0}, {6, 6, 0, 0, 0},
				{6, 6, 0, 0, 0}, {6, 2, 0, 4, 0}},
		},
		{
			name: "a perfect forecast wakes nodes before the peak",
			s:    peak, cfg: small(), fc: power.Oracle{Series: []float64{2, 2, 5, 5, 1, 1, 1}},
			want: []state{{3, 3, 0, 0, 0}, {3, 6, 3, 0, 0}, {6, 6, 0, 0, 0}, {6, 6, 0, 0, 0}, {6, 2, 0, 4, 0},
				{2, 2, 0, 0, 0}, {2, 2, 0, 0, 0}},
		},
		{
			// Demand fell by 2 against the last 2 intervals and is forecast
			// to fall 1 more: shrink to busy + buffer.
			name: "helios: shrink after a fall forecast to last",
			s:    series(8, 4, 4, 4, 4, 2, 1, 1, 1, 1, 1), cfg: helios,
			fc: power.Oracle{Series: []float64{4, 4, 4, 4, 2, 1, 1, 1, 1, 1}},
			want: []state{{5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 3, 0, 2, 0},
				{3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}, {3, 3, 0, 0, 0}},
		},
		{
			// The same fall, but the mean over 2f exceeds the mean over f
			// (demand returns): keep; wake when busy exceeds the powered.
			name: "helios: no shrink when demand is forecast to rise, wake on demand",
			s:    series(8, 4, 4, 4, 4, 2, 1, 1, 1, 6, 6), cfg: helios,
			fc: power.Oracle{Series: []float64{4, 4, 4, 4, 2, 1, 1, 1, 6, 6}},
			want: []state{{5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0},
				{5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 5, 0, 0, 0}, {5, 7, 2, 0, 1}, {7, 7, 0, 0, 0}},
		},
		{
			name: "never more than the nodes that exist",
			s:    series(4, 3, 4, 4), cfg: with(func(c *power.Config) { c.Buffer = 3 }), fc: power.RecentMax{Window: 1},
			want: []state{{4, 4, 0, 0, 0}, {4, 4, 0, 0, 0}, {4, 4, 0, 0, 0}},
		},
		{
			name: "a shrinking cluster takes powered nodes with it",
			s:    power.Series{Name: "shrink", Start: t0, Step: 10 * time.Minute, Busy: []int{1, 1, 1}, Total: []int{6, 2, 2}},
			cfg:  with(func(c *power.Config) { c.Buffer = 4 }), fc: power.RecentMax{Window: 1},
			want: []state{{5, 5, 0, 0, 0}, {2, 2, 0, 0, 0}, {2, 2, 0, 0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := power.Replay(tt.s, tt.cfg, tt.fc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, states(res.Intervals)); diff != "" {
				t.Errorf("intervals (-want +got), {ready powered up down short}:\n%s", diff)
			}
			checkInvariants(t, tt.s, res)
		})
	}
}

func TestSummary(t *testing.T) {
	res, err := power.Replay(series(8, 2, 2, 5, 5, 1, 1, 1), small(), power.RecentMax{Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Off: 5 5 2 2 2 6 6 = 28 node-intervals of 10 min at 600 W = 2.8 kWh.
	want := power.Summary{
		Intervals: 7, Days: 7.0 / 144, Nodes: 8, MeanBusy: 17.0 / 7,
		UtilBefore: 17.0 / 56, UtilAfter: (2.0/3 + 2.0/3 + 5.0/6 + 5.0/6 + 1.0/6 + 0.5 + 0.5) / 7,
		MeanOff: 4, OffNodeHours: 28.0 / 6, IdleNodeHours: 39.0 / 6, SavedKWh: 2.8,
		PowerUps: 3, PowerDowns: 4, ChangeIntervals: 2, ChangesPerDay: 2 / (7.0 / 144),
		ShortIntervals: 1, MaxShort: 2, ShortNodeHours: 2.0 / 6,
	}
	want.GainPoints = want.UtilAfter - want.UtilBefore
	if diff := cmp.Diff(want, res.Summary, cmpopts.EquateApprox(1e-12, 1e-9)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if res.Intervals[0].SavedWh != 500 {
		t.Errorf("first interval saved %v Wh, want 5 nodes × 600 W × 1/6 h = 500", res.Intervals[0].SavedWh)
	}
}

func TestReplayRefuses(t *testing.T) {
	tests := []struct {
		name string
		s    power.Series
		cfg  power.Config
		want string
	}{
		{"step mismatch", series(4, 1), func() power.Config { c := small(); c.Step = time.Hour; return c }(), "configured for 1h0m0s"},
		{"busy above total", series(4, 5), small(), "busy 5 of 4 nodes"},
		{"empty", series(4), small(), "no intervals"},
		{"unknown rule", series(4, 1), func() power.Config { c := small(); c.Rule = "lgbm"; return c }(), `rule "lgbm"`},
		{"helios without history", series(4, 1), func() power.Config { c := small(); c.Rule = power.RuleHelios; return c }(), "history (0)"},
		{"negative buffer", series(4, 1), func() power.Config { c := small(); c.Buffer = -1; return c }(), "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := power.Replay(tt.s, tt.cfg, power.DefaultForecaster())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Replay error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestHeliosConfig(t *testing.T) {
	c, err := power.HeliosConfig("Earth")
	if err != nil {
		t.Fatal(err)
	}
	want := power.Config{Rule: power.RuleHelios, Step: 10 * time.Minute, Buffer: 5, Horizon: 18, Keep: 12, MinDecrease: 5,
		History: 6, Future: 18, HistThreshold: 1, FutThreshold: 1, IdleWatts: power.DefaultIdleWatts}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("earth preset (-want +got):\n%s", diff)
	}
	if _, err := power.HeliosConfig("mars"); err == nil || !strings.Contains(err.Error(), "earth, philly, saturn, uranus, venus") {
		t.Errorf("unknown preset: %v", err)
	}
}

// checkInvariants holds for every replay: the books balance, nothing
// exceeds the cluster, a shortfall is exactly the demand above ready nodes.
func checkInvariants(t *testing.T, s power.Series, res power.Result) {
	t.Helper()
	for i, iv := range res.Intervals {
		switch {
		case iv.Powered > iv.Total || iv.Powered < 0:
			t.Fatalf("interval %d: %d powered of %d", i, iv.Powered, iv.Total)
		case iv.Off != iv.Total-iv.Powered:
			t.Fatalf("interval %d: off %d != %d − %d", i, iv.Off, iv.Total, iv.Powered)
		case iv.Short != max(0, iv.Busy-iv.Ready):
			t.Fatalf("interval %d: short %d, busy %d ready %d", i, iv.Short, iv.Busy, iv.Ready)
		case iv.Busy != s.Busy[i]:
			t.Fatalf("interval %d: busy %d, series %d", i, iv.Busy, s.Busy[i])
		case iv.Up > 0 && iv.Down > 0:
			t.Fatalf("interval %d: wakes %d and powers down %d at once", i, iv.Up, iv.Down)
		case iv.Down > 0 && iv.Powered < iv.Busy:
			t.Fatalf("interval %d: powered down below the busy nodes", i)
		}
	}
}

func TestResultFrom(t *testing.T) {
	res, err := power.Replay(series(8, 2, 2, 5, 5, 1, 1, 1), small(), power.RecentMax{Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The last three intervals: the advisor enters with 6 nodes from the
	// peak and powers 4 down; off 2, 6, 6.
	got := res.From(4)
	if diff := cmp.Diff(res.Intervals[4:], got.Intervals); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
	if s := got.Summary; s.Intervals != 3 || s.PowerDowns != 4 || math.Abs(s.OffNodeHours-14.0/6) > 1e-9 {
		t.Errorf("summary of the last three: %+v", s)
	}
	if n := len(res.From(99).Intervals); n != 0 {
		t.Errorf("From past the end kept %d intervals", n)
	}
}
