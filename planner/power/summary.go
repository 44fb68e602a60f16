package power

import "time"

// Summary condenses a replay into the figures the Helios artifact reports
// (utilization before and after, power-state changes per day, mean nodes
// off) plus the energy saved and the shortfalls.
type Summary struct {
	Intervals int     `json:"intervals"`
	Days      float64 `json:"days"`
	// Nodes is the largest node count; MeanBusy the mean busy nodes.
	Nodes    int     `json:"nodes"`
	MeanBusy float64 `json:"mean_busy"`
	// UtilBefore is the mean of busy / total nodes (all powered), UtilAfter
	// the mean of busy / powered nodes (Helios' "Used rate" and "Optimized
	// rate"); intervals with no node powered and none busy count as fully
	// used. GainPoints = UtilAfter − UtilBefore (fractions, not %).
	UtilBefore float64 `json:"util_before"`
	UtilAfter  float64 `json:"util_after"`
	GainPoints float64 `json:"gain_points"`
	// MeanOff is the mean number of nodes powered off.
	MeanOff float64 `json:"mean_off"`
	// OffNodeHours is Σ nodes off × interval; IdleNodeHours the idle node
	// hours with every node on (Σ (total − busy) × interval): their ratio
	// is the share of idle time avoided.
	OffNodeHours  float64 `json:"off_node_hours"`
	IdleNodeHours float64 `json:"idle_node_hours"`
	// SavedKWh is OffNodeHours × IdleWatts / 1000.
	SavedKWh float64 `json:"saved_kwh"`
	// PowerUps and PowerDowns count node transitions; ChangeIntervals the
	// intervals with any (Helios counts these per day: "daily change
	// times").
	PowerUps        int     `json:"power_ups"`
	PowerDowns      int     `json:"power_downs"`
	ChangeIntervals int     `json:"change_intervals"`
	ChangesPerDay   float64 `json:"changes_per_day"`
	// ShortIntervals count intervals where demand exceeded the ready
	// nodes, MaxShort the largest excess (nodes), ShortNodeHours Σ excess ×
	// interval (node-time that jobs waited for booting nodes, at the
	// series' resolution).
	ShortIntervals int     `json:"short_intervals"`
	MaxShort       int     `json:"max_short"`
	ShortNodeHours float64 `json:"short_node_hours"`
}

// Summarize computes the Summary of a replay's intervals of length step.
func Summarize(ivs []Interval, step time.Duration) Summary {
	s := Summary{Intervals: len(ivs), Days: float64(len(ivs)) * step.Hours() / 24}
	if len(ivs) == 0 {
		return s
	}
	h := step.Hours()
	for _, iv := range ivs {
		s.Nodes = max(s.Nodes, iv.Total)
		s.MeanBusy += float64(iv.Busy)
		s.UtilBefore += ratio(iv.Busy, iv.Total)
		s.UtilAfter += ratio(iv.Busy, iv.Powered)
		s.MeanOff += float64(iv.Off)
		s.OffNodeHours += float64(iv.Off) * h
		s.IdleNodeHours += float64(iv.Total-iv.Busy) * h
		s.SavedKWh += iv.SavedWh / 1000
		s.PowerUps += iv.Up
		s.PowerDowns += iv.Down
		if iv.Up > 0 || iv.Down > 0 {
			s.ChangeIntervals++
		}
		if iv.Short > 0 {
			s.ShortIntervals++
			s.MaxShort = max(s.MaxShort, iv.Short)
			s.ShortNodeHours += float64(iv.Short) * h
		}
	}
	n := float64(len(ivs))
	s.MeanBusy /= n
	s.UtilBefore /= n
	s.UtilAfter /= n
	s.MeanOff /= n
	s.GainPoints = s.UtilAfter - s.UtilBefore
	s.ChangesPerDay = float64(s.ChangeIntervals) / s.Days
	return s
}

// ratio is busy/powered, 1 when nothing is powered (nothing wasted).
func ratio(busy, powered int) float64 {
	if powered <= 0 {
		return 1
	}
	return min(1, float64(busy)/float64(powered))
}
