package power

import (
	"fmt"
	"time"
)

// Series is a number of busy nodes per interval.
type Series struct {
	// Name says where the series comes from (for reports).
	Name string `json:"name"`
	// Start is the wall-clock time of the first interval (zero: unknown).
	Start time.Time `json:"start"`
	// Step is the interval length.
	Step time.Duration `json:"step_ns"`
	// Busy is the number of nodes running at least one job in each
	// interval; Total the number of nodes that exist (same length).
	Busy  []int `json:"busy"`
	Total []int `json:"total"`
}

// Len is the number of intervals.
func (s Series) Len() int { return len(s.Busy) }

// Time is the start of interval i.
func (s Series) Time(i int) time.Time { return s.Start.Add(time.Duration(i) * s.Step) }

// Window returns the intervals starting in [from, to) (a zero bound is
// open).
func (s Series) Window(from, to time.Time) Series {
	lo, hi := 0, s.Len()
	for lo < hi && !from.IsZero() && s.Time(lo).Before(from) {
		lo++
	}
	for hi > lo && !to.IsZero() && !s.Time(hi-1).Before(to) {
		hi--
	}
	out := s
	out.Start = s.Time(lo)
	out.Busy, out.Total = s.Busy[lo:hi], s.Total[lo:hi]
	return out
}

// Validate checks the series is usable: same lengths, busy within 0..total.
func (s Series) Validate() error {
	if len(s.Busy) != len(s.Total) {
		return fmt.Errorf("series %s: %d busy values but %d totals", s.Name, len(s.Busy), len(s.Total))
	}
	if s.Len() == 0 {
		return fmt.Errorf("series %s: no intervals", s.Name)
	}
	for i := range s.Busy {
		if s.Busy[i] < 0 || s.Total[i] < 0 || s.Busy[i] > s.Total[i] {
			return fmt.Errorf("series %s: interval %d: busy %d of %d nodes", s.Name, i, s.Busy[i], s.Total[i])
		}
	}
	return nil
}

// Interval is the advisor's state at one interval of a replay.
type Interval struct {
	Time  time.Time `json:"time"`
	Total int       `json:"total"`
	Busy  int       `json:"busy"`
	// Forecast is the figure the rule used: RuleMargin the forecast peak
	// over the horizon (at least Busy), RuleHelios the mean forecast over
	// Future.
	Forecast float64 `json:"forecast"`
	Target   int     `json:"target"`
	// Ready nodes could serve jobs at the start of the interval; Powered
	// (after the interval's changes) draw power, booting ones included;
	// Off = Total − Powered.
	Ready   int `json:"ready"`
	Powered int `json:"powered"`
	Off     int `json:"off"`
	// Up and Down are the nodes powered up and down in this interval.
	Up   int `json:"up"`
	Down int `json:"down"`
	// Short is the demand above the ready nodes: busy nodes' jobs that
	// waited for a node to boot.
	Short int `json:"short"`
	// SavedWh is Off × IdleWatts × Step.
	SavedWh float64 `json:"saved_wh"`
}

// Result is a whole replay.
type Result struct {
	Series     string     `json:"series"`
	Forecaster string     `json:"forecaster"`
	Config     Config     `json:"config"`
	Summary    Summary    `json:"summary"`
	Intervals  []Interval `json:"intervals,omitempty"`
}

// Replay runs the advisor over s: at each interval it sees the busy counts
// up to that interval only (and the forecast), decides, and the next
// interval's demand meets what it left powered. The first interval powers
// busy + Buffer nodes (as the Helios artifact starts). Demand is taken as
// given: jobs that would wait for a booting node are counted (Short), not
// delayed.
func Replay(s Series, cfg Config, fc Forecaster) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	if s.Step != cfg.Step {
		return Result{}, fmt.Errorf("series %s has %s intervals, the advisor is configured for %s", s.Name, s.Step, cfg.Step)
	}
	busy := make([]float64, s.Len())
	for i, b := range s.Busy {
		busy[i] = float64(b)
	}
	resume := cfg.steps(cfg.ResumeTimeout)
	hours := cfg.Step.Hours()
	out := make([]Interval, s.Len())
	var f fleet
	for i := range s.Busy {
		total := s.Total[i]
		iv := Interval{Time: s.Time(i), Total: total, Busy: s.Busy[i]}
		if i == 0 {
			f.ready = min(total, s.Busy[0]+cfg.Buffer)
			iv.Ready, iv.Target, iv.Forecast = f.ready, f.ready, busy[0]
		} else {
			f.promote(i)
			f.clip(total)
			iv.Ready = f.ready
			d := decide(cfg, &f, busy, i, total, fc)
			f.apply(d, i, resume, cfg.Keep)
			iv.Forecast, iv.Target, iv.Up, iv.Down = d.forecast, d.target, d.wake, d.down
		}
		iv.Short = max(0, s.Busy[i]-iv.Ready)
		iv.Powered = f.powered()
		iv.Off = total - iv.Powered
		iv.SavedWh = float64(iv.Off) * cfg.IdleWatts * hours
		out[i] = iv
	}
	return Result{Series: s.Name, Forecaster: fc.Name(), Config: cfg, Summary: Summarize(out, cfg.Step), Intervals: out}, nil
}

// From drops the first k intervals of r (a warm-up: the advisor's state and
// the forecaster's history before the period of interest) and summarizes
// the rest.
func (r Result) From(k int) Result {
	k = min(max(k, 0), len(r.Intervals))
	r.Intervals = r.Intervals[k:]
	r.Summary = Summarize(r.Intervals, r.Config.Step)
	return r
}
