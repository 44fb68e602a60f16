package hint

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// humanBytes prints a size in binary units as Slurm writes them.
func humanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f, i = f/1024, i+1
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", f), "0"), ".0") + " " + units[i]
}

// iterationsText says what iters= means for h's model: the Pollux curves
// were measured at a global batch, split across the GPUs (more GPUs, shorter
// steps); the layered and params= models train each worker on its own batch
// (more GPUs, more samples per step, the same number of steps).
func iterationsText(h planner.Hints, cat *planner.Catalog) string {
	if _, _, curve := cat.CurveRange(h.Model); curve {
		return fmt.Sprintf("%d (steps of the global batch of %d, split across the GPUs: more GPUs make each step shorter)", h.Iters, h.Batch)
	}
	return fmt.Sprintf("%d (each worker runs them on its own batch of %d: more GPUs train more samples per step, in as many steps)", h.Iters, h.Batch)
}

// printHints writes one line per hint the user set (and the defaults that
// matter: GPUs fixed or chosen, architecture, weight), and what the script
// asks of Slurm.
func printHints(w io.Writer, h planner.Hints, gpus string, s *Script, cat *planner.Catalog) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	if h.Model != "" {
		row("model", h.Model)
	}
	if mi, ok := cat.Sized(h.Model); ok {
		row("sample", mi.Sample)
	}
	if h.Precision != "" {
		row("precision", h.Precision)
	}
	if h.Params > 0 {
		row("params", h.Params)
		row("flops/sample", h.FLOPs)
	}
	if h.Batch > 0 {
		row("batch", h.Batch)
	}
	switch {
	case h.Iters > 0:
		row("iterations", iterationsText(h, cat))
	case h.Epochs > 0:
		row("work", fmt.Sprintf("%d epochs × %d samples", h.Epochs, h.Samples))
	}
	row("gpus", gpus)
	row("arch", h.EffectiveArch(max(h.GPUMax, 2)))
	if h.PSAuto || h.PSMax > 0 {
		row("ps", map[bool]string{true: "auto", false: fmt.Sprintf("%d-%d", h.PSMin, h.PSMax)}[h.PSAuto])
	}
	if !h.Deadline.IsZero() {
		row("deadline", h.Deadline.Format(time.RFC3339))
	}
	row("weight", h.JobWeight())
	if h.Energy != "" {
		row("energy", h.Energy)
	}
	if h.BBBytes > 0 {
		row("bb", humanBytes(h.BBBytes))
	}
	if h.MemBytes > 0 {
		row("mem per worker", humanBytes(h.MemBytes))
	}
	if h.NoRewrite {
		row("rewrite", "no (Strata will not change this job)")
	}
	if h.Preempt {
		row("preempt", fmt.Sprintf("yes: Strata may send SIG%s; the job must save, scontrol requeue itself and resume (needs sbatch --requeue)",
			h.CheckpointSignal()))
		row("restart cost", fmtDuration(planner.JobRestartCost(h, planner.Options{})))
	}
	if s != nil {
		limit := "none (the partition's default)"
		if s.TimeLimit > 0 {
			limit = fmtDuration(s.TimeLimit)
		}
		row("time limit", limit)
		if s.Partition != "" {
			row("partition", s.Partition)
		}
		if s.Account != "" {
			row("account", s.Account)
		}
	}
	return tw.Flush()
}
