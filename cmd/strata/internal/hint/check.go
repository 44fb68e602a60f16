package hint

import (
	"encoding/json"
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
	if !strings.Contains(strings.ToLower(comment), "strata:") && strings.Contains(comment, "=") {
		comment = "strata: " + comment
	}
	h, ok, err := planner.ParseHints(comment)
	if err == nil && ok {
		err = checkModel(h, cat)
	}
	if err != nil {
		return InvalidError{err}
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
		return nil
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
	for _, g := range counts {
		ps := 0
		if h.EffectiveArch(hi) == planner.ArchPS {
			ps = max(1, g/2)
		}
		d, r, err := planner.EstimateDuration(&planner.Job{Comment: comment, GPUsPerJob: g}, g, ps, planner.Options{})
		if err != nil || r != planner.ReasonModelled {
			return nil // no model answer (e.g. batch without a curve): nothing to show
		}
		parts = append(parts, fmt.Sprintf("%d GPUs %s", g, d.Round(time.Second)))
	}
	_, err := fmt.Fprintf(w, "modelled run time (reference GPU): %s\n", strings.Join(parts, ", "))
	return err
}

// checkModel rejects model names and (for measured curves) batch sizes the
// catalog does not know, so users see it before submitting.
func checkModel(h planner.Hints, cat *planner.Catalog) error {
	if h.Model == "" {
		return nil
	}
	if !cat.Has(h.Model) {
		return &planner.HintError{Field: "model", Value: h.Model,
			Fix: "not in the catalog; use one of " + strings.Join(cat.Models(), ", ") + ", or params= with flops="}
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
		row("iterations", h.Iters)
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
		row("bb bytes", h.BBBytes)
	}
	if h.MemBytes > 0 {
		row("mem/worker bytes", h.MemBytes)
	}
	if h.NoRewrite {
		row("rewrite", "no (Strata will not change this job)")
	}
	return tw.Flush()
}
