package hint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// InvalidError is a hint that does not parse or names what the catalog
// does not know: the CLI exits with status 2.
type InvalidError struct{ Err error }

func (e InvalidError) Error() string { return e.Err.Error() }
func (e InvalidError) Unwrap() error { return e.Err }

// ExitCode is the CLI's exit status for an invalid hint.
func (e InvalidError) ExitCode() int { return 2 }

// Check parses comment (a bare "key=value ..." text is read as the strata:
// segment), validates the model against cat and prints the hints to w (as
// JSON with asJSON). A comment without a strata: segment is valid. Invalid
// hints are an InvalidError naming the field, the bad value and the fix.
func Check(w io.Writer, comment string, asJSON bool, cat *planner.Catalog) error {
	return check(w, comment, nil, asJSON, cat)
}

// CheckScript checks a job script: the hint of its #SBATCH --comment and
// its burst-buffer directives, every error at once.
func CheckScript(w io.Writer, s Script, asJSON bool, cat *planner.Catalog) error {
	if !s.HasComment && !asJSON {
		if _, err := fmt.Fprintln(w, "the script sets no #SBATCH --comment: no strata: hint"); err != nil {
			return err
		}
	}
	var extra []error
	if err := s.checkBB(); err != nil {
		extra = append(extra, err)
	}
	return check(w, s.Comment, extra, asJSON, cat)
}

func check(w io.Writer, comment string, extra []error, asJSON bool, cat *planner.Catalog) error {
	if !strings.Contains(strings.ToLower(comment), "strata:") && strings.Contains(comment, "=") {
		comment = "strata: " + comment
	}
	h, ok, errs := planner.ParseHintsAll(comment)
	if len(errs) == 0 && ok {
		if err := checkModel(h, cat); err != nil {
			errs = append(errs, err)
		}
	}
	if errs = append(errs, extra...); len(errs) > 0 {
		return InvalidError{errors.Join(errs...)}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Found bool          `json:"found"`
			Hints planner.Hints `json:"hints"`
		}{ok, h})
	}
	if !ok {
		_, err := fmt.Fprintln(w, "no strata: segment: the job keeps its GPU request; only its priority may change")
		return err
	}
	if err := printHints(w, h); err != nil {
		return err
	}
	return printDurations(w, comment, h)
}

// printDurations shows the modelled run time for a few GPU counts of the
// hint's range (powers of two and the ends), when the hint has a model and
// an amount of work.
func printDurations(w io.Writer, comment string, h planner.Hints) error {
	if (h.Model == "" && h.Params == 0) || (h.Iters == 0 && h.Epochs == 0) {
		_, err := fmt.Fprintln(w, "modelled run time: none (give model= or params=, and iters= or epochs=, to see it)")
		return err
	}
	lo, hi := max(1, h.GPUMin), max(1, h.GPUMax)
	counts := []int{lo}
	for g := 1; g < hi; g *= 2 {
		if g > lo {
			counts = append(counts, g)
		}
	}
	if hi > lo {
		counts = append(counts, hi)
	}
	var parts []string
	slower := false
	var last time.Duration
	for _, g := range counts {
		ps := 0
		if h.EffectiveArch(hi) == planner.ArchPS {
			ps = max(1, g/2)
		}
		d, r, err := planner.EstimateDuration(&planner.Job{Comment: comment, GPUsPerJob: g}, g, ps, planner.Options{})
		if err != nil || r != planner.ReasonModelled {
			why := "the catalog has no time model for this model and batch"
			if err != nil {
				why = err.Error()
			}
			_, err := fmt.Fprintf(w, "modelled run time: none (%s)\n", why)
			return err
		}
		parts = append(parts, fmt.Sprintf("%d GPUs %s", g, d.Round(time.Second)))
		slower = slower || last > 0 && d > last+time.Second
		last = d
	}
	_, err := fmt.Fprintf(w, "modelled run time on the catalog's reference GPU (%s; other GPU types scale by [planner] gpu-speed): %s\n",
		refGPU(h), strings.Join(parts, ", "))
	if err == nil && slower {
		_, err = fmt.Fprintln(w, "(more GPUs can be slower: gradients are exchanged every step, and past some count that costs more than the extra GPUs save)")
	}
	return err
}

// refGPU names the GPU the catalog's profile of h's model was measured on.
func refGPU(h planner.Hints) string {
	if g := planner.DefaultCatalog().RefGPU(h.Model); g != "" {
		return g
	}
	return "the catalog's reference GPU"
}

// humanBytes prints a size in binary units as Slurm writes them.
func humanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f, i = f/1024, i+1
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", f), "0"), ".0") + " " + units[i]
}

// checkModel rejects model names and (for measured curves) batch sizes the
// catalog does not know, so users see it before submitting.
func checkModel(h planner.Hints, cat *planner.Catalog) error {
	if h.Model == "" {
		return nil
	}
	if !cat.Has(h.Model) {
		fix := "not in the catalog; use one of " + strings.Join(cat.Models(), ", ") + ", or params= with flops="
		if s := planner.Suggest(h.Model, cat.Models()); s != "" {
			fix = "not in the catalog; did you mean model=" + s + "? (or params= with flops= for a model the catalog lacks)"
		}
		return &planner.HintError{Field: "model", Value: h.Model, Fix: fix}
	}
	if _, layered := cat.Layered(h.Model); !layered && h.Batch > 0 {
		bs := cat.CurveBatches(h.Model)
		for _, b := range bs {
			if b == h.Batch {
				return nil
			}
		}
		return &planner.HintError{Field: "batch", Value: fmt.Sprint(h.Batch),
			Fix: fmt.Sprintf("%s is measured at global batch sizes %v; pick one", h.Model, bs)}
	}
	return nil
}

// printHints writes one line per hint the user set (and the defaults that
// matter: GPUs fixed or chosen, architecture, weight).
func printHints(w io.Writer, h planner.Hints) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	if h.Model != "" {
		row("model", h.Model)
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
		row("iterations", fmt.Sprintf("%d (each worker runs them on its own batch of %d: the time does not shrink with more GPUs, the work done grows)", h.Iters, h.Batch))
	case h.Epochs > 0:
		row("work", fmt.Sprintf("%d epochs × %d samples", h.Epochs, h.Samples))
	}
	if h.GPUMax > 0 {
		row("gpus", fmt.Sprintf("%d-%d (the planner chooses in this range)", h.GPUMin, h.GPUMax))
	} else {
		row("gpus", "fixed (as requested with --gres/--gpus)")
	}
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
		row("preempt", fmt.Sprintf("yes: Strata may send SIG%s; the job must save, `scontrol requeue` itself and resume (needs sbatch --requeue)",
			h.CheckpointSignal()))
		row("restart cost", planner.JobRestartCost(h, planner.Options{}))
	}
	return tw.Flush()
}
