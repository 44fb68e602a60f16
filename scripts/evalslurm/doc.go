package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The generated part of docs/evaluation.d/10-slurm-model.md.

// updateDoc replaces the generated table of the doc's section (the section
// is appended with the table alone when missing).
func updateDoc(path string, ev Evaluation) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	table := genBegin + "\n" + markdownTable(ev) + genEnd
	i, k := bytes.Index(b, []byte(genBegin)), bytes.Index(b, []byte(genEnd))
	var out []byte
	switch {
	case i >= 0 && k > i:
		out = append(append(append([]byte{}, b[:i]...), table...), b[k+len(genEnd):]...)
	case bytes.Contains(b, []byte(docTitle)):
		return fmt.Errorf("%s: the section %q lacks the generated-table markers", path, docTitle)
	default:
		out = append(append(bytes.TrimRight(b, "\n"), "\n\n"+docTitle+"\n\n"...), table+"\n"...)
	}
	return os.WriteFile(path, out, 0o644)
}

// markdownTable renders the comparison (trace seconds).
func markdownTable(ev Evaluation) string {
	var b strings.Builder
	s := ev.Configs[0]
	fmt.Fprintf(&b, "Measured %s%s: the first %d jobs of `%s`, time scale 1/%g, cluster %s.\n\n",
		ev.Generated, commitNote(ev.Commit), s.Jobs, filepath.Base(s.Trace), s.Scale, s.Cluster)
	for _, x := range ev.Configs {
		fmt.Fprintf(&b, "- configuration **%s**: %s; PriorityWeightJobSize %.0f\n", x.Label, cpuWords(x.JobCPUs), x.PriorityWeightJobSize)
	}
	b.WriteString("\n")
	b.WriteString("| | " + strings.Join(policies(ev), " | ") + " |\n|---|" + strings.Repeat("---|", len(ev.Comparisons)) + "\n")
	row := func(name string, f func(c Comparison) string) {
		b.WriteString("| " + name)
		for _, c := range ev.Comparisons {
			b.WriteString(" | " + f(c))
		}
		b.WriteString(" |\n")
	}
	num := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	row("jobs compared", func(c Comparison) string {
		if c.NeverRunnable > 0 {
			return fmt.Sprintf("%d (%d never runnable on the real Slurm: left out)", c.Jobs, c.NeverRunnable)
		}
		return fmt.Sprint(c.Jobs)
	})
	row("avg JCT, real Slurm (s)", func(c Comparison) string { return num(c.ReplayAvgJCT) })
	row("avg JCT, simulator (s)", func(c Comparison) string { return num(c.SimAvgJCT) })
	row("**JCT ratio real / simulator** (goal 0.9–1.1)", func(c Comparison) string {
		return fmt.Sprintf("**%.3f** %s", c.JCTRatio, mark(math.Abs(c.JCTRatio-1) <= 0.1))
	})
	row("**Spearman ρ of start times** (goal ≥ 0.9)", func(c Comparison) string { return fmt.Sprintf("**%.3f** %s", c.Spearman, mark(c.Spearman >= 0.9)) })
	row("makespan, real / simulator (s)", func(c Comparison) string { return num(c.ReplayMakespan) + " / " + num(c.SimMakespan) })
	row("avg wait, real / simulator (s)", func(c Comparison) string { return num(c.ReplayAvgQueue) + " / " + num(c.SimAvgQueue) })
	row("mean abs. start difference (s)", func(c Comparison) string { return num(c.MeanAbsStartDiff) })
	row("jobs started on another GPU count than simulated", func(c Comparison) string { return fmt.Sprint(c.GPUMismatch) })
	row("jobs started on another GPU count than requested, real / simulator", func(c Comparison) string {
		return fmt.Sprintf("%d / %d", c.ReplayChanged, c.SimChanged)
	})
	row("simulator with the real submission times: avg JCT (s), ratio, ρ", func(c Comparison) string {
		return fmt.Sprintf("%s, %.3f, %.3f", num(c.SimActualAvgJCT), c.JCTRatioActual, c.SpearmanActual)
	})
	row("real: jobs Slurm's backfill started", func(c Comparison) string { return fmt.Sprint(c.ReplayBackfilled) })
	row("real: median start latency after an arrival / a completion (real s; jobs)", func(c Comparison) string {
		return fmt.Sprintf("%.2f (%d) / %.2f (%d)", c.ArrivalLatencyReal, c.ArrivalStarts, c.CompletionLatencyReal, c.CompletionStarts)
	})
	row("real: submission lag / launch / run overhead (real s, mean)", func(c Comparison) string {
		return fmt.Sprintf("%.2f / %.2f / %.2f", c.SubmitLagReal, c.LaunchReal, c.RunOverReal)
	})
	row("real: load average mean / max (2 cores); wall time (s)", func(c Comparison) string {
		return fmt.Sprintf("%.2f / %.2f; %.0f", c.LoadMean, c.LoadMax, c.WallReal)
	})
	row("Strata cycles (mean ms) / writes in the simulator", func(c Comparison) string {
		if c.Policy != "smd" {
			return "–"
		}
		return fmt.Sprintf("%d (%.0f ms) / %d", c.StrataCycles, c.StrataCycleMS, c.StrataWrites)
	})
	b.WriteString("\nThe unscaled model (first " + fmt.Sprint(s.Jobs) + " jobs, default settings) with each setting the replay could not scale exactly set to what the replay's value stands for (avg JCT, s):\n\n")
	b.WriteString("| policy | setting | avg JCT | default |\n|---|---|---|---|\n")
	for _, x := range ev.Sensitivity {
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f |\n", x.Policy, x.What, x.AvgJCT, x.Default)
	}
	return b.String()
}

func policies(ev Evaluation) []string {
	var out []string
	for _, c := range ev.Comparisons {
		name := c.Policy
		if name == "slurm" {
			name = "slurm (Slurm alone)"
		} else {
			name += " (strata run --enforce)"
		}
		if c.Config != "" {
			name = c.Config + ": " + name
		}
		out = append(out, name)
	}
	return out
}

func cpuWords(jobCPUs string) string {
	if jobCPUs == "per-gpu" {
		return "jobs ask for 12 CPUs and 48 GiB per GPU (`--cpus-per-gpu`, `--mem-per-gpu`), as the simulator's jobs hold them"
	}
	return "jobs ask for GPUs only (Slurm's default of one CPU per task)"
}

func mark(ok bool) string {
	if ok {
		return "(met)"
	}
	return "(missed)"
}

func commitNote(c string) string {
	if c == "" {
		return ""
	}
	return " at commit " + c
}
