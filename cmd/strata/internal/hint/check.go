package hint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"strings"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/planner"
)

// InvalidError is a hint that does not parse or names what the catalog
// does not know (or a script sbatch would refuse): the CLI exits with
// status 2.
type InvalidError = inputerr.Error

// WarningError is a valid hint with warnings (a time limit shorter than
// the run, a deadline that cannot be met) under Options.Strict: status 1.
type WarningError struct{ Warnings []string }

func (e WarningError) Error() string {
	return fmt.Sprintf("hint check: %d warning(s) with --strict", len(e.Warnings))
}

// ExitCode is the CLI's exit status for warnings under --strict.
func (e WarningError) ExitCode() int { return 1 }

// Options are what a check knows besides the hint.
type Options struct {
	JSON   bool // print the Result as JSON (also when the hint is invalid)
	Strict bool // warnings make the check fail (WarningError)
	// Now anchors the deadline check.
	Now time.Time
	// Catalog is the model catalog (planner.DefaultCatalog()).
	Catalog *planner.Catalog
	// Planner are the site's planner options: its caps (Limits) and GPU
	// speeds, as strata run applies them.
	Planner planner.Options
	// GPUType is the GPU type to time the job on when the script names
	// none (--gpu-type; a comment checked alone).
	GPUType string
	// Records are the site's ended jobs (the database; nil: none
	// configured), read for the spread of the run; RecordsErr says why
	// they could not be opened. Context bounds the read.
	Records    Records
	RecordsErr error
	Context    context.Context
}

// Result is what a check found; --json prints it, valid or not.
type Result struct {
	Found  bool          `json:"found"`
	Valid  bool          `json:"valid"`
	Hints  planner.Hints `json:"hints"`
	Script *ScriptInfo   `json:"script,omitempty"`
	GPUs   string        `json:"gpus,omitempty"` // the counts the planner may choose, after the site's caps
	Caps   []string      `json:"caps,omitempty"`
	Runs   []Run         `json:"modelled_runs,omitempty"`
	// TimedBy is the catalog row or rule that timed the runs, and its source.
	TimedBy *planner.TimingBasis `json:"timed_by,omitempty"`
	// Spread is how far the real run may fall from the modelled one on
	// this site, and where that comes from (with modelled runs only).
	Spread *Spread `json:"spread,omitempty"`
	// TimeLimit is the time limit the job would get from Strata, and why.
	TimeLimit *LimitInfo `json:"time_limit,omitempty"`
	Errors    []string   `json:"errors,omitempty"`
	Warnings  []string   `json:"warnings,omitempty"`
	// Notes are remarks that are not warnings (a limit inside the spread).
	Notes []string `json:"notes,omitempty"`
}

// ScriptInfo is what the script asks of Slurm.
type ScriptInfo struct {
	GPUs       int    `json:"gpus"`
	GPUType    string `json:"gpu_type,omitempty"`
	TimeLimitS int64  `json:"time_limit_s,omitempty"`
	Partition  string `json:"partition,omitempty"`
	Account    string `json:"account,omitempty"`
}

// Run is the modelled run time at one GPU count.
type Run struct {
	GPUs    int     `json:"gpus"`
	Seconds float64 `json:"seconds"`
	// LowSeconds..HighSeconds is the expected spread around Seconds
	// (Spread's range; absent where none is known).
	LowSeconds  float64 `json:"low_seconds,omitempty"`
	HighSeconds float64 `json:"high_seconds,omitempty"`
}

// Check parses comment (a bare "key=value ..." text is read as the strata:
// segment), validates the model against the catalog and prints the hints to
// w. A comment without a strata: segment is valid. Invalid hints are an
// InvalidError naming the field, the bad value and the fix.
func Check(w io.Writer, comment string, o Options) error {
	if !strings.Contains(strings.ToLower(comment), "strata:") && strings.Contains(comment, "=") {
		comment = "strata: " + comment
	}
	return check(w, comment, nil, o)
}

// CheckScript checks a job script as sbatch reads it: the hint of its
// #SBATCH --comment with the script's GPU request, time limit, partition
// and account, and its burst-buffer directives; every error at once.
func CheckScript(w io.Writer, s Script, o Options) error {
	if !s.HasComment && !o.JSON {
		if _, err := fmt.Fprintln(w, "the script sets no #SBATCH --comment: no strata: hint"); err != nil {
			return err
		}
	}
	return check(w, s.Comment, &s, o)
}

func check(w io.Writer, comment string, s *Script, o Options) error {
	if o.Catalog == nil {
		o.Catalog = planner.DefaultCatalog()
	}
	h, ok, errs := planner.ParseHintsAll(comment)
	if s != nil && s.GPUType != "" {
		o.GPUType = s.GPUType
	}
	if ok {
		if err := checkModel(h, o.Catalog); err != nil {
			errs = append(errs, err)
		}
		if err := checkGPUType(h, o); err != nil {
			errs = append(errs, err)
		}
	}
	res := Result{Found: ok, Hints: h}
	if s != nil {
		errs = append(errs, s.Errors...)
		if err := s.checkBB(); err != nil {
			errs = append(errs, err)
		}
		res.Script = &ScriptInfo{GPUs: s.GPUs, GPUType: s.GPUType, TimeLimitS: int64(s.TimeLimit / time.Second),
			Partition: s.Partition, Account: s.Account}
		for _, l := range s.Ignored {
			res.Warnings = append(res.Warnings, l+": after the first command, sbatch ignores it")
		}
	}
	if len(errs) > 0 {
		for _, e := range errs {
			res.Errors = append(res.Errors, e.Error())
		}
		if o.JSON {
			if err := writeJSON(w, res); err != nil {
				return err
			}
		}
		return InvalidError{Err: errors.Join(errs...)}
	}
	res.Valid = true
	p := plan(h, ok, s, o)
	res.GPUs, res.Caps = p.gpus, p.caps
	res.Hints = p.hints
	runs, why := modelRuns(comment, p, o)
	res.Runs = runs
	if len(runs) > 0 {
		if b, ok := planner.TimingBasisOf(&planner.Job{Comment: comment, GPUType: o.GPUType}, o.Planner); ok {
			res.TimedBy = &b
		}
		sp := spreadOf(p.hints, res.TimedBy, o)
		res.Spread = &sp
		applySpread(runs, sp)
	}
	li := limitInfo(p.hints, ok, s, runs, o.Planner)
	res.TimeLimit = &li
	res.Warnings = append(res.Warnings, flopsWarning(h)...)
	ws, notes := limitWarnings(s, runs, res.Spread)
	res.Warnings = append(res.Warnings, ws...)
	res.Notes = notes
	res.Warnings = append(res.Warnings, deadlineWarnings(h, runs, o.Now)...)
	if o.JSON {
		if err := writeJSON(w, res); err != nil {
			return err
		}
	} else if err := printText(w, res, ok, s, o, why); err != nil {
		return err
	}
	if o.Strict && len(res.Warnings) > 0 {
		return WarningError{res.Warnings}
	}
	return nil
}

// WriteRefusal writes, as --json's document, a check that could not run
// (no such script, too many arguments): not found, not valid, the reason in
// errors.
func WriteRefusal(w io.Writer, err error) error {
	return writeJSON(w, Result{Errors: []string{err.Error()}})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printText writes the hints, the script's request, the caps, the modelled
// run times and the warnings.
func printText(w io.Writer, res Result, ok bool, s *Script, o Options, why string) error {
	cat := o.Catalog
	if !ok {
		_, err := fmt.Fprintln(w, "no strata: segment: the job keeps its GPU request; only its priority may change")
		if err == nil && res.TimeLimit != nil {
			_, err = fmt.Fprintln(w, res.TimeLimit.Text)
		}
		return err
	}
	if err := printHints(w, res.Hints, res.GPUs, s, cat); err != nil {
		return err
	}
	var b strings.Builder
	for _, c := range res.Caps {
		fmt.Fprintf(&b, "site cap: %s\n", c)
	}
	b.WriteString(runsLine(res.Hints, res.Runs, why, cat, res.TimedBy))
	if res.Spread != nil {
		fmt.Fprintf(&b, "expected spread: %s\n", res.Spread.Text)
	}
	if res.TimeLimit != nil {
		b.WriteString(res.TimeLimit.Text + "\n")
	}
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, wn := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// limitWarnings compares the modelled runs with the script's time limit:
// a warning only where the model is confident the limit is too short (it
// is below the fast end of the spread, sp.WarnBelow × the modelled run), a
// note where the limit lies inside the spread.
func limitWarnings(s *Script, runs []Run, sp *Spread) (warns, notes []string) {
	if s == nil || s.TimeLimit <= 0 || sp == nil {
		return nil, nil
	}
	var over, inside []string
	for _, r := range runs {
		at := fmt.Sprintf("%d GPUs %s", r.GPUs, fmtDuration(seconds(r.Seconds)))
		high := max(r.Seconds, r.HighSeconds)
		switch {
		case seconds(r.Seconds*sp.WarnBelow) > s.TimeLimit:
			over = append(over, at)
		case seconds(high) > s.TimeLimit:
			inside = append(inside, at)
		}
	}
	if len(over) > 0 {
		warns = append(warns, fmt.Sprintf("--time=%s is shorter than the modelled run at %s, and than %.2f × it, the fast end of its spread (%s): "+
			"Slurm would end the job at its limit (raise --time, or narrow gpus=)",
			fmtDuration(s.TimeLimit), strings.Join(over, ", "), sp.WarnBelow, sp.Source))
	}
	switch {
	case len(inside) > 0 && sp.LowRatio > 0:
		notes = append(notes, fmt.Sprintf("--time=%s lies inside the spread of the run at %s: the run may outlast it",
			fmtDuration(s.TimeLimit), strings.Join(inside, ", ")))
	case len(inside) > 0:
		notes = append(notes, fmt.Sprintf("--time=%s is shorter than the modelled run at %s: the run may outlast it (no spread is known, so it is not called too short)",
			fmtDuration(s.TimeLimit), strings.Join(inside, ", ")))
	}
	return warns, notes
}

// deadlineWarnings compares the fastest modelled run with the hint's
// deadline.
func deadlineWarnings(h planner.Hints, runs []Run, now time.Time) []string {
	var out []string
	if h.Deadline.IsZero() || now.IsZero() {
		return out
	}
	if !h.Deadline.After(now) {
		return append(out, fmt.Sprintf("deadline=%s is already past (now %s)",
			h.Deadline.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
	}
	if len(runs) > 0 {
		best := runs[0]
		for _, r := range runs[1:] {
			if r.Seconds < best.Seconds {
				best = r
			}
		}
		if end := now.Add(seconds(best.Seconds)); end.After(h.Deadline) {
			out = append(out, fmt.Sprintf("deadline=%s cannot be met: even starting now, the fastest modelled run (%d GPUs, %s) ends at %s",
				h.Deadline.UTC().Format(time.RFC3339), best.GPUs, fmtDuration(seconds(best.Seconds)), end.UTC().Format(time.RFC3339)))
		}
	}
	return out
}

// flopsWarning flags a flops= below 6 × params: training one token costs
// 6 FLOPs per parameter (forward 2, backward 4; Kaplan et al. 2020), so a
// smaller figure is the forward pass alone or per token, and the run would
// model too short.
func flopsWarning(h planner.Hints) []string {
	if h.Params == 0 || h.FLOPs >= 6*float64(h.Params) {
		return nil
	}
	return []string{fmt.Sprintf("flops=%g is below 6 × params=%d: training a sample costs at least 6 FLOPs per parameter per token (forward and backward); give the training FLOPs of one whole sample",
		h.FLOPs, h.Params)}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// fmtDuration prints d as Slurm and sacct do: [D-]HH:MM:SS.
func fmtDuration(d time.Duration) string { return term.Duration(d) }

// checkModel rejects model names and batch sizes outside the measured
// curves the catalog does not know, so users see it before submitting.
func checkModel(h planner.Hints, cat *planner.Catalog) error {
	if h.Model == "" {
		return nil
	}
	if !cat.Has(h.Model) {
		fix := "not in the catalog; use one of " + strings.Join(cat.Models(), ", ") + ", or params= with flops="
		if s := cat.SuggestModels(h.Model); len(s) > 0 {
			fix = "not in the catalog; did you mean model=" + strings.Join(s, " or model=") + "? (or params= with flops= for a model the catalog lacks)"
		}
		return &planner.HintError{Field: "model", Value: h.Model, Fix: fix}
	}
	if lo, hi, curve := cat.CurveRange(h.Model); curve && h.Batch > 0 && (h.Batch < lo || h.Batch > hi) {
		return &planner.HintError{Field: "batch", Value: fmt.Sprint(h.Batch),
			Fix: fmt.Sprintf("%s is measured at global batch sizes %v; batches between %d and %d are interpolated, others cannot be timed",
				h.Model, cat.CurveBatches(h.Model), lo, hi)}
	}
	return nil
}

// checkGPUType rejects a GPU type that neither Strata nor the site's
// [planner] gpu-speed knows, when the hint asks for a modelled run.
func checkGPUType(h planner.Hints, o Options) error {
	t := strings.ToLower(o.GPUType)
	if t == "" || h.Model == "" && h.Params == 0 {
		return nil
	}
	if _, ok := planner.LookupGPU(t); ok {
		return nil
	}
	if _, ok := o.Planner.GPUSpeed[t]; ok {
		return nil
	}
	fix := "not a GPU type Strata knows (" + strings.Join(planner.GPUTypes(), ", ") + "); the site can give its speed in [planner] gpu-speed"
	if s := planner.Suggest(t, planner.GPUTypes()); s != "" {
		fix = "did you mean " + s + "? (" + fix + ")"
	}
	return &planner.HintError{Field: "gpu type", Value: o.GPUType, Fix: fix}
}
