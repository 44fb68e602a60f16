package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// ReadReport parses a report written by Report.WriteJSON.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("read simulation report: %w", err)
	}
	return &rep, nil
}

// Targets of the peer comparison (design.md §8, issue 5).
const (
	// PeerTolerance is how close our Tiresias/Optimus must be to the
	// published figures (±15 %).
	PeerTolerance = 0.15
	// SMDTarget is the largest acceptable smd / published-Tiresias ratio.
	SMDTarget = 0.85
)

// WriteEvaluation writes the peer-comparison tables in Markdown: one row
// per report (workload) with the published averages, ours, and the ratios
// the targets are stated in; then a detail table per workload.
func WriteEvaluation(w io.Writer, reps []*Report) error {
	var b strings.Builder
	b.WriteString("| workload | Pollux (pub.) | Optimus+Oracle (pub.) | Tiresias (pub.) | fifo | tiresias | optimus | smd |" +
		" tiresias / pub. | optimus / pub. | smd / pub. Tiresias | smd / Pollux |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range reps {
		ours := map[string]*Result{}
		for _, x := range r.Results {
			ours[x.Policy] = x
		}
		pub := r.Published
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.name(), num(pub["pollux"]), num(pub["optimus"]), num(pub["tiresias"]),
			avg(ours["fifo"]), avg(ours["tiresias"]), avg(ours["optimus"]), avg(ours["smd"]),
			ratio(ours["tiresias"], pub["tiresias"], withinTolerance),
			ratio(ours["optimus"], pub["optimus"], withinTolerance),
			ratio(ours["smd"], pub["tiresias"], func(q float64) bool { return q <= SMDTarget }),
			ratio(ours["smd"], pub["pollux"], nil))
	}
	b.WriteString("\nAverage JCT in seconds. ✓/✗: our Tiresias and Optimus within ±15 % of the published figure;" +
		" smd at most 0.85 × the published Tiresias. \"⚠ N unfinished\": N jobs never ran (the run stalled), so the" +
		" average covers only the finished jobs and the target counts as missed.\n")
	for _, r := range reps {
		writeDetail(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write evaluation: %w", err)
	}
	return nil
}

// SlurmTarget is the largest acceptable smd / Slurm-alone average JCT in
// Slurm mode (issue 11).
const SlurmTarget = 0.6

// WriteSlurmEvaluation writes the Slurm-mode table: per report (workload)
// the average JCT of Slurm alone and of each policy as Slurm lets it act,
// then smd against Slurm alone on average JCT, p95 and GPU utilization,
// then a detail table per workload.
func WriteSlurmEvaluation(w io.Writer, reps []*Report) error {
	var b strings.Builder
	pols := []string{"slurm", "fifo", "qssf", "tiresias", "optimus", "smd"}
	b.WriteString("| workload | " + strings.Join(pols, " | ") + " | smd / slurm | p95 smd / slurm | GPU util smd vs slurm |\n")
	b.WriteString("| --- |" + strings.Repeat(" ---: |", len(pols)+3) + "\n")
	for _, r := range reps {
		ours := map[string]*Result{}
		for _, x := range r.Results {
			ours[x.Policy] = x
		}
		fmt.Fprintf(&b, "| %s |", r.name())
		for _, p := range pols {
			fmt.Fprintf(&b, " %s |", avg(ours[p]))
		}
		base, smd := ours["slurm"], ours["smd"]
		var p95, util string = "–", "–"
		if base != nil && smd != nil && base.P95JCT > 0 {
			p95 = fmt.Sprintf("%.2f", smd.P95JCT/base.P95JCT)
			p95 += mark(smd.P95JCT <= base.P95JCT)
			util = fmt.Sprintf("%.3f vs %.3f", smd.GPUUtil, base.GPUUtil) + mark(smd.GPUUtil >= base.GPUUtil)
		}
		var avgJCT float64
		if base != nil {
			avgJCT = base.AvgJCT
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", ratio(smd, avgJCT, func(q float64) bool { return q <= SlurmTarget }), p95, util)
	}
	b.WriteString("\nAverage JCT in seconds, Slurm as the scheduler (`--scheduler slurm`). ✓/✗: smd at most 0.6 × Slurm" +
		" alone; smd's p95 not above Slurm alone's; smd's GPU utilization not below. \"⚠ N unfinished\": N jobs" +
		" never ran (or, in reports from before resubmissions, were killed at their time limit), so the average covers only the others and the target counts as missed.\n")
	for _, r := range reps {
		writeDetail(&b, r)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write evaluation: %w", err)
	}
	return nil
}

func mark(ok bool) string {
	if ok {
		return " ✓"
	}
	return " ✗"
}

// WriteWhatIfs writes one row per policy run of the reports (variants
// and what-ifs), with the ratios to the published Tiresias and Pollux.
func WriteWhatIfs(w io.Writer, reps []*Report) error {
	var b strings.Builder
	b.WriteString("| run | policy | avg JCT s | makespan s | / pub. Tiresias | / pub. Pollux | preempt. | resizes | restarts per job | GPU-h lost to restarts | anomalies |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range reps {
		for _, x := range r.Results {
			fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %s | %s | %d | %d | %.2f | %.1f | %s |\n", r.name(), x.Policy, avg(x), x.Makespan,
				ratio(x, r.Published["tiresias"], nil), ratio(x, r.Published["pollux"], nil),
				x.Preemptions, x.Resizes, x.RestartsPerJob, x.LostGPUHours, flags(x))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write what-ifs: %w", err)
	}
	return nil
}

func withinTolerance(q float64) bool { return math.Abs(q-1) <= PeerTolerance }

// writeDetail writes every metric of one report.
func writeDetail(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "\n#### %s (%d jobs, %s, interval %g s)\n\n", r.name(), r.TraceJobs, r.Cluster, r.IntervalS)
	b.WriteString("| policy | jobs | avg JCT s | p50 | p95 | p99 | avg queue s | makespan s | GPU util | energy kWh |" +
		" avg start GPUs | changed alloc. | preempt. | resizes | anomalies |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, x := range r.Results {
		fmt.Fprintf(b, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f | %.1f | %.2f | %d | %d | %d | %s |\n",
			x.Policy, x.Jobs, x.AvgJCT, x.P50JCT, x.P95JCT, x.P99JCT, x.AvgQueue, x.Makespan, x.GPUUtil,
			x.EnergyKWh, x.AvgStartGPUs, x.ChangedAllocations, x.Preemptions, x.Resizes, flags(x))
	}
}

// name is the label, else the trace's base name without extension
// (".../pollux_workload3.csv" → "pollux_workload3").
func (r *Report) name() string {
	if r.Label != "" {
		return r.Label
	}
	return strings.TrimSuffix(filepath.Base(r.Trace), filepath.Ext(r.Trace))
}

func num(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// avg formats a policy's average JCT, flagging unfinished jobs.
func avg(x *Result) string {
	if x == nil {
		return "–"
	}
	if n := x.Lost(); n > 0 {
		return fmt.Sprintf("%s ⚠ %d unfinished", num(x.AvgJCT), n)
	}
	return num(x.AvgJCT)
}

// ratio formats ours/published with a ✓/✗ mark when ok is given; a run
// with unfinished jobs never passes.
func ratio(x *Result, pub float64, ok func(float64) bool) string {
	if x == nil || x.AvgJCT == 0 || pub == 0 {
		return "–"
	}
	q := x.AvgJCT / pub
	s := fmt.Sprintf("%.2f", q)
	switch {
	case ok == nil:
	case ok(q) && x.Lost() == 0:
		s += " ✓"
	default:
		s += " ✗"
	}
	return s
}
