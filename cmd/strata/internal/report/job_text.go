package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/db"
)

// sparkBars draw a series in one line of text.
var sparkBars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values (0..top) in at most width characters, each the
// mean of its share of the values.
func sparkline(values []float64, top float64, width int) string {
	if len(values) == 0 || top <= 0 {
		return ""
	}
	n := min(width, len(values))
	var b strings.Builder
	for i := range n {
		lo, hi := i*len(values)/n, (i+1)*len(values)/n
		var sum float64
		for _, v := range values[lo:hi] {
			sum += v
		}
		level := int(sum / float64(hi-lo) / top * float64(len(sparkBars)-1))
		b.WriteRune(sparkBars[max(0, min(len(sparkBars)-1, level))])
	}
	return b.String()
}

// writeJobText prints the job view as text.
func writeJobText(w io.Writer, jr db.JobReport, o JobOptions) error {
	ts := func(t time.Time) string { return FmtBucket(t, o.Loc, "2006-01-02T15:04:05") }
	var b strings.Builder
	fmt.Fprintf(&b, "Job %d", jr.Job)
	if jr.Name != "" {
		fmt.Fprintf(&b, " (%s)", term.OneLine(jr.Name))
	}
	fmt.Fprintf(&b, "  user %s  account %s  partition %s\n", orDash(term.OneLine(jr.User)), orDash(term.OneLine(jr.Account)),
		orDash(term.OneLine(jr.Partition)))
	fmt.Fprintf(&b, "Submitted %s  started %s  ended %s", orDash(ts(jr.Submit)), orDash(ts(jr.Start)), orDash(ts(jr.End)))
	if !jr.Start.IsZero() && !jr.Submit.IsZero() {
		fmt.Fprintf(&b, "  waited %s", FmtDuration(jr.Start.Sub(jr.Submit).Seconds()))
	}
	if !jr.End.IsZero() && !jr.Start.IsZero() {
		fmt.Fprintf(&b, "  ran %s", FmtDuration(jr.End.Sub(jr.Start).Seconds()))
	}
	b.WriteString("\n\n")
	if len(jr.GPUs) == 0 {
		b.WriteString("No GPU telemetry was collected for this job (no GPU assignment recorded).\n")
	} else {
		writeJobGPUs(&b, jr, o)
	}
	if len(jr.Decisions) > 0 {
		b.WriteString("\nPlanner decisions\n")
		rows := [][]string{{"Cycle", "At", "Action", "Reason", "Outcome / detail"}}
		for _, d := range jr.Decisions {
			rows = append(rows, []string{strconv.FormatInt(d.Cycle, 10), ts(d.At), d.Action, term.OneLine(d.Reason), term.OneLine(d.Detail)})
		}
		writeAligned(&b, rows, nil)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeJobGPUs(b *strings.Builder, jr db.JobReport, o JobOptions) {
	t := jr.Totals
	idle := 0.0
	if t.GPUSeconds > 0 {
		idle = 100 * t.IdleGPUSeconds / t.GPUSeconds
	}
	fmt.Fprintf(b, "GPU energy %s kWh (idle %s kWh)  GPU-hours %s  mean utilization %s %%  idle %s %% of GPU time\n\n",
		FmtKWh(t.EnergyJ/3.6e6), FmtKWh(t.IdleEnergyJ/3.6e6), FmtGPUh(t.GPUSeconds/3600), FmtPct(t.UtilGPU), FmtPct(idle))
	rows := [][]string{{"Node", "GPU", "Util(%)", "MemPeak", "MemTotal", "Power(W)", "Energy(kWh)", "Idle(%)", "Utilization over time"}}
	for _, g := range jr.PerGPU {
		util := make([]float64, len(g.Series))
		for i, p := range g.Series {
			util[i] = p.UtilGPU
		}
		gIdle := 0.0
		if g.GPUSeconds > 0 {
			gIdle = 100 * g.IdleGPUSeconds / g.GPUSeconds
		}
		total := "?"
		if g.MemTotalBytes > 0 {
			total = fmtBytes(g.MemTotalBytes)
		}
		rows = append(rows, []string{term.OneLine(g.Host), term.OneLine(shortUUID(g.UUID)), FmtPct(g.UtilGPU), fmtBytes(g.MemPeakBytes), total,
			FmtFloat(g.PowerW, 0), FmtKWh(g.EnergyJ / 3.6e6), FmtPct(gIdle), sparkline(util, 100, 40)})
	}
	writeAligned(b, rows, []bool{false, false, true, true, true, true, true, true, false})
	if a := Advice(jr); a != "" {
		fmt.Fprintf(b, "\nAdvice: %s\n", a)
	}
}

// writeAligned writes rows as columns two spaces apart (num: right-aligned).
func writeAligned(b *strings.Builder, rows [][]string, num []bool) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				line.WriteString("  ")
			}
			if i < len(num) && num[i] {
				line.WriteString(pad + c)
			} else if i < len(r)-1 {
				line.WriteString(c + pad)
			} else {
				line.WriteString(c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
