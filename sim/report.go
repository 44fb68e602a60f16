package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"text/tabwriter"
)

// Report is the JSON document of `strata simulate --json`: the run's
// inputs and one Result per policy, in the order the policies were given.
type Report struct {
	Trace string `json:"trace"`
	// Label names the run in evaluation tables (default: the trace name).
	Label      string  `json:"label,omitempty"`
	Cluster    string  `json:"cluster"`
	IntervalS  float64 `json:"interval_s"`
	TraceJobs  int     `json:"trace_jobs"`
	SkippedBad int     `json:"skipped_rows"`
	CPUOnly    int     `json:"cpu_only_rows"`
	// Published is the average of each jct_* column of the trace (JCTs
	// other schedulers published for exactly these jobs), by scheduler.
	Published map[string]float64 `json:"published,omitempty"`
	// SpeedTruth are the true speed factors by model of a --speed-error
	// run (PerturbSpeeds; nil otherwise).
	SpeedTruth map[string]float64 `json:"speed_truth,omitempty"`
	// Knowledge is what users knew and wrote (KnowledgeRealistic; "" =
	// the oracle).
	Knowledge string    `json:"knowledge,omitempty"`
	Results   []*Result `json:"results"`
}

// Published averages the trace's per-job published JCT columns.
func Published(tr *Trace) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, j := range tr.Jobs {
		for k, v := range j.Published {
			sum[k] += v
			n[k]++
		}
	}
	if len(sum) == 0 {
		return nil
	}
	out := make(map[string]float64, len(sum))
	for k, s := range sum {
		out[k] = round(s/float64(n[k]), 1)
	}
	return out
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write simulation json: %w", err)
	}
	return nil
}

// WriteTable writes the report as a readable table.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "trace %s: %d jobs on %s, interval %gs (predictor: oracle = true durations)\n",
		r.Trace, r.TraceJobs, r.Cluster, r.IntervalS)
	if r.SkippedBad > 0 || r.CPUOnly > 0 {
		fmt.Fprintf(w, "skipped %d malformed rows, ignored %d CPU-only rows\n", r.SkippedBad, r.CPUOnly)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tjobs\tavg JCT\tp50\tp95\tp99\tavg queue\tmakespan\tGPU util\tkWh\tavg GPUs\trestarts\tflags\t")
	for _, x := range r.Results {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.1f\t%.2f\t%d\t%s\t\n",
			x.Policy, x.Jobs, HumanDuration(x.AvgJCT), HumanDuration(x.P50JCT), HumanDuration(x.P95JCT), HumanDuration(x.P99JCT),
			HumanDuration(x.AvgQueue), HumanDuration(x.Makespan),
			x.GPUUtil, x.EnergyKWh, x.AvgStartGPUs, x.Preemptions+x.Resizes, flags(x))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write simulation table: %w", err)
	}
	if err := r.writeBBTable(w); err != nil {
		return err
	}
	if err := r.writeCostTable(w); err != nil {
		return err
	}
	r.writeHonestyLines(w)
	for _, k := range slices.Sorted(maps.Keys(r.Published)) {
		fmt.Fprintf(w, "published %s: avg JCT %s (%.0f s)\n", k, HumanDuration(r.Published[k]), r.Published[k])
	}
	fmt.Fprintln(w, "(times as d/h/m/s; --json gives seconds)")
	return nil
}

// HumanDuration prints seconds for a reader: 42s, 12m05s, 25h58m (up to
// two days), 2d 14h; "-" for a negative or undefined value.
func HumanDuration(sec float64) string {
	if !(sec >= 0) || math.IsInf(sec, 0) {
		return "-"
	}
	s := int64(math.Round(sec))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 48*3600:
		m := (s + 30) / 60 // to the minute
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	h := (s + 1800) / 3600 // to the hour
	return fmt.Sprintf("%dd %02dh", h/24, h%24)
}

// writeBBTable writes the burst-buffer figures of the runs that have a
// pool (nothing when none has).
func (r *Report) writeBBTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := false
	for _, x := range r.Results {
		b := x.BurstBuffer
		if b == nil {
			continue
		}
		if !head {
			fmt.Fprintln(tw, "burst buffer\tjobs\tpool util\tpool wait s\tstage-in s\tsubmit→staged s\tstaged idle s\tlongest wait s\t")
			head = true
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n",
			x.Policy, b.Jobs, b.PoolUtil, b.PoolWait, b.StageIn, b.StageWait, b.StagedIdle, b.MaxQueue)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write simulation table: %w", err)
	}
	return nil
}

// flags lists the anomalies of a run ("-" when none).
func flags(x *Result) string {
	s := ""
	add := func(n int, what string) {
		if n > 0 {
			s += fmt.Sprintf("%s%d %s", sep(s), n, what)
		}
	}
	add(x.HonestyViolations, "honesty-violations")
	add(x.RejectedStarts, "rejected-starts")
	add(x.RejectedResizes, "rejected-resizes")
	add(x.LinearScaled, "linear-scaled")
	add(x.Dropped, "dropped")
	add(x.Unfinished, "unfinished")
	add(x.TimeLimitKills, "killed-at-time-limit (resubmitted)")
	add(x.LimitsLowered, "limits-lowered")
	if s == "" {
		return "-"
	}
	return s
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return ", "
}
