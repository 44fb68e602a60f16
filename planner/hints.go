package planner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Arch is the training architecture named by the arch= hint.
type Arch string

// Training architectures.
const (
	ArchUnset     Arch = ""
	ArchPS        Arch = "ps"
	ArchAllReduce Arch = "allreduce"
	ArchSingle    Arch = "single"
)

// EnergyPref is the energy= hint.
type EnergyPref string

// Energy preferences; balanced is the default.
const (
	EnergyBalanced EnergyPref = "balanced"
	EnergyMin      EnergyPref = "min"
	EnergyTime     EnergyPref = "time"
)

// Hints is the typed content of a job's strata: segment (design.md §3).
// Zero values mean "not given".
type Hints struct {
	// Model is a catalog model name (lower case), e.g. "resnet50".
	Model string `json:"model,omitempty"`
	// Params is the parameter count and FLOPs the training FLOPs per sample
	// (forward + backward); used together instead of Model.
	Params int64   `json:"params,omitempty"`
	FLOPs  float64 `json:"flops,omitempty"`
	// Precision is the precision= hint: fp32, tf32 or amp (bf16, fp16 and
	// mixed read as amp); unset means the GPU's default (GPUSpec.DefaultPrecision).
	Precision Precision `json:"precision,omitempty"`
	// Batch is the mini-batch size per worker (for Pollux curve models: the
	// global batch size the curve was measured at).
	Batch int `json:"batch,omitempty"`
	// Epochs × Samples, or Iters, give the amount of work.
	Epochs  int   `json:"epochs,omitempty"`
	Samples int64 `json:"samples,omitempty"`
	Iters   int64 `json:"iters,omitempty"`
	// GPUMin..GPUMax is the range the planner may choose in (0 = not given:
	// the GPU count is fixed).
	GPUMin int  `json:"gpu_min,omitempty"`
	GPUMax int  `json:"gpu_max,omitempty"`
	Arch   Arch `json:"arch,omitempty"`
	// PSAuto is ps=auto; otherwise PSMin..PSMax (0 = not given).
	PSAuto bool `json:"ps_auto,omitempty"`
	PSMin  int  `json:"ps_min,omitempty"`
	PSMax  int  `json:"ps_max,omitempty"`
	// Deadline in UTC (zero = none).
	Deadline time.Time `json:"deadline,omitzero"`
	// Weight is the JCT weight (0 = not given, meaning 1).
	Weight float64    `json:"weight,omitempty"`
	Energy EnergyPref `json:"energy,omitempty"`
	// BBBytes is the dataset size to stage in a burst buffer; MemBytes the
	// host memory per worker.
	BBBytes  int64 `json:"bb_bytes,omitempty"`
	MemBytes int64 `json:"mem_bytes,omitempty"`
	// BBOutBytes is the data staged out of the burst buffer after the job
	// ends (bbout=): its space stays held until then.
	BBOutBytes int64 `json:"bb_out_bytes,omitempty"`
	// NoRewrite is rewrite=no: the user opts out of any change.
	NoRewrite bool `json:"no_rewrite,omitempty"`
	// Preempt is preempt=yes: the user allows Strata to stop the running
	// job (it checkpoints and requeues itself on Signal) and to restart it
	// later, possibly at another size within gpus=. Opt-in: false unless
	// given (see Preemptible for what else must hold).
	Preempt bool `json:"preempt,omitempty"`
	// Signal is the signal the job traps to checkpoint and requeue itself,
	// normalised without the SIG prefix ("USR1"); "" = not given, meaning
	// DefaultSignal.
	Signal string `json:"signal,omitempty"`
	// RestartCost is restart=: what one restart costs the job (checkpoint,
	// requeue and start-up); 0 = not given (JobRestartCost has the
	// default).
	RestartCost time.Duration `json:"restart_cost,omitempty"`
}

// HintError says which hint field is wrong, with what value, and how to fix
// it. Value is empty for a missing field.
type HintError struct {
	Field string
	Value string
	Fix   string
}

// Error implements error: "hint gpus=8-2: <fix>".
func (e *HintError) Error() string {
	if e.Value == "" && e.Field != "" {
		return fmt.Sprintf("hint %s: %s", e.Field, e.Fix)
	}
	return fmt.Sprintf("hint %s=%s: %s", e.Field, e.Value, e.Fix)
}

// hintPrefix starts the strata segment of a Slurm comment.
const hintPrefix = "strata:"

// HintSegment returns the strata: segment of a comment as the user wrote it
// ("strata: k=v ...", up to the next ';'), for display; ok is false when the
// comment has no segment, or two (ParseHints says why).
func HintSegment(comment string) (string, bool) {
	start, seg, ok, err := locateHint(comment)
	if !ok || err != nil {
		return "", false
	}
	return comment[start : start+len(hintPrefix)+len(seg)], true
}

// hintSegment returns the text after "strata:" up to the next ';' or the
// end, and whether there is a segment.
func hintSegment(comment string) (string, bool, error) {
	_, seg, ok, err := locateHint(comment)
	return seg, ok, err
}

// locateHint finds the segment: the byte offset of its "strata:" prefix and
// the text after it up to the next ';' or the end. The prefix must start the
// comment or follow whitespace, ';' or ','.
func locateHint(comment string) (int, string, bool, error) {
	lower := asciiLower(comment) // same byte offsets as comment, even for invalid UTF-8
	start := -1
	for i := 0; i+len(hintPrefix) <= len(lower); {
		k := strings.Index(lower[i:], hintPrefix)
		if k < 0 {
			break
		}
		at := i + k
		if at == 0 || strings.ContainsRune(" \t\n;,", rune(lower[at-1])) {
			if start >= 0 {
				return 0, "", true, &HintError{Field: "strata:", Value: "", Fix: "the comment has two strata: segments; merge them into one"}
			}
			start = at
		}
		i = at + len(hintPrefix)
	}
	if start < 0 {
		return 0, "", false, nil
	}
	seg := comment[start+len(hintPrefix):]
	if end := strings.IndexByte(seg, ';'); end >= 0 {
		seg = seg[:end]
	}
	return start, seg, true, nil
}

// ParseHints finds the strata: segment in a Slurm comment and parses it.
// The bool is false when the comment has no segment (the rest of the
// comment belongs to the user and is never read). The segment ends at the
// first ';' or at the end of the comment. Errors are *HintError.
func ParseHints(comment string) (Hints, bool, error) {
	h, ok, errs := ParseHintsAll(comment)
	if len(errs) > 0 {
		return Hints{}, ok, errs[0]
	}
	return h, ok, nil
}

// ParseHintsAll is ParseHints reporting every error of the segment, each a
// *HintError, in the order of the keys (for `strata hint check`). The hints
// are only meaningful when there is no error.
func ParseHintsAll(comment string) (Hints, bool, []error) {
	seg, ok, err := hintSegment(comment)
	if err != nil || !ok {
		if err != nil {
			return Hints{}, ok, []error{err}
		}
		return Hints{}, ok, nil
	}
	var h Hints
	var errs []error
	seen := map[string]bool{}
	toks := strings.Fields(seg)
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		key, val, found := strings.Cut(tok, "=")
		key = strings.ToLower(key)
		if found && key == "deadline" && i+1 < len(toks) && isClock(toks[i+1]) {
			val, i = val+"T"+toks[i+1], i+1 // deadline=2026-12-01 18:00, as people write it
		}
		if !found || key == "" {
			errs = append(errs, &HintError{Field: tok, Fix: "write key=value without spaces around '=' (end the hint with ';' to add your own text after it)"})
			continue
		}
		if seen[key] {
			errs = append(errs, &HintError{Field: key, Value: val, Fix: "the key appears twice; keep one"})
			continue
		}
		seen[key] = true
		if err := h.set(key, val); err != nil {
			errs = append(errs, err)
		}
	}
	if len(seen) == 0 && len(errs) == 0 {
		return Hints{}, true, []error{&HintError{Field: "strata:", Fix: "the segment is empty; add key=value pairs such as gpus=1-8"}}
	}
	if len(errs) == 0 {
		if err := h.check(); err != nil {
			errs = append(errs, err)
		}
	}
	return h, true, errs
}

// isClock reports whether s looks like a time of day (18:00, 18:00:30).
func isClock(s string) bool {
	n := len(s)
	if n != 5 && n != 8 {
		return false
	}
	for i := 0; i < n; i++ {
		if (i == 2 || i == 5) != (s[i] == ':') || s[i] != ':' && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// hintKeys are the keys the grammar knows, for suggestions.
var hintKeys = []string{"model", "params", "flops", "precision", "batch", "epochs", "samples", "iters", "gpus", "arch", "ps",
	"deadline", "weight", "energy", "bb", "mem", "rewrite", "preempt", "signal", "restart"}

// Suggest returns the candidate closest to s (edit distance at most 2, or
// equal once '-', '_' and case are ignored), or "" when none is close.
func Suggest(s string, candidates []string) string {
	norm := func(x string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(x))
	}
	best, bestD := "", 3
	for _, c := range candidates {
		if norm(c) == norm(s) {
			return c
		}
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// set parses one key=value into h.
func (h *Hints) set(key, val string) error {
	if val == "" {
		return &HintError{Field: key, Value: val, Fix: "the value is empty"}
	}
	f, ok := hintSetters[key]
	if !ok {
		fix := "unknown key; valid keys are " + strings.Join(hintKeys, ", ")
		if s := Suggest(key, hintKeys); s != "" {
			fix = "unknown key; did you mean " + s + "=" + val + "?"
		}
		return &HintError{Field: key, Value: val, Fix: fix}
	}
	if fix := f(h, val); fix != "" {
		return &HintError{Field: key, Value: val, Fix: fix}
	}
	return nil
}

// hintSetters parse one key each; they return "" or the fix for a bad value.
var hintSetters = map[string]func(h *Hints, val string) string{
	"model": func(h *Hints, v string) string { h.Model = strings.ToLower(v); return "" },
	"params": func(h *Hints, v string) string {
		f, err := parseCount(v)
		if h.Params = int64(f); err != nil || h.Params < 1 {
			return "want a parameter count such as 25M, 1.3G or 7B (K/M/G or B/T = 10^3..10^12)"
		}
		return ""
	},
	"flops": func(h *Hints, v string) string {
		var err error
		if h.FLOPs, err = parseCount(v); err != nil || h.FLOPs <= 0 {
			return "want training FLOPs per sample such as 12G (forward+backward; K/M/G/T/P = 10^3..10^15)"
		}
		return ""
	},
	"precision": func(h *Hints, v string) string {
		p, ok := precisionWords[strings.ToLower(v)]
		if !ok {
			fix := "want fp32, tf32, amp, bf16 or fp16 (bf16/fp16 are amp: 16-bit mixed precision)"
			if s := Suggest(v, PrecisionWords()); s != "" {
				fix = "did you mean precision=" + s + "? (" + fix + ")"
			}
			return fix
		}
		h.Precision = p
		return ""
	},
	"batch":   positiveSetter(func(h *Hints, n int) { h.Batch = n }, 1<<24, "want the per-worker mini-batch size, a whole number ≥ 1"),
	"epochs":  positiveSetter(func(h *Hints, n int) { h.Epochs = n }, 1<<20, "want the number of epochs, a whole number ≥ 1"),
	"samples": wholeSetter(func(h *Hints, n int64) { h.Samples = n }),
	"iters":   wholeSetter(func(h *Hints, n int64) { h.Iters = n }),
	"gpus": func(h *Hints, v string) string {
		var err error
		if h.GPUMin, h.GPUMax, err = parseRange(v, 4096); err != nil {
			return "want MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 4096 (e.g. gpus=2-8), or one count for a fixed size"
		}
		return ""
	},
	"arch": func(h *Hints, v string) string {
		switch a := Arch(strings.ToLower(v)); a {
		case ArchPS, ArchAllReduce, ArchSingle:
			h.Arch = a
			return ""
		}
		return "want ps, allreduce or single"
	},
	"ps": func(h *Hints, v string) string {
		if strings.EqualFold(v, "auto") {
			h.PSAuto = true
			return ""
		}
		var err error
		if h.PSMin, h.PSMax, err = parseRange(v, 1024); err != nil {
			return "want auto, a count N, or MIN-MAX with 1 ≤ MIN ≤ MAX (e.g. ps=1-4)"
		}
		return ""
	},
	"deadline": func(h *Hints, v string) string {
		var err error
		if h.Deadline, err = parseDeadline(v); err != nil {
			return "want an RFC 3339 time such as 2026-12-01T18:00:00Z, or 2026-12-01T18:00 (UTC)"
		}
		return ""
	},
	"weight": func(h *Hints, v string) string {
		var err error
		if h.Weight, err = strconv.ParseFloat(v, 64); err != nil || !(h.Weight > 0 && h.Weight <= 1000) {
			return "want a number > 0 and ≤ 1000 (1 = normal)"
		}
		return ""
	},
	"energy": func(h *Hints, v string) string {
		switch e := EnergyPref(strings.ToLower(v)); e {
		case EnergyMin, EnergyBalanced, EnergyTime:
			h.Energy = e
			return ""
		}
		return "want min, balanced or time"
	},
	"bb":    sizeSetter(func(h *Hints, n int64) { h.BBBytes = n }),
	"bbout": sizeSetter(func(h *Hints, n int64) { h.BBOutBytes = n }),
	"mem":   memSetter(func(h *Hints, n int64) { h.MemBytes = n }),
	"rewrite": func(h *Hints, v string) string {
		switch strings.ToLower(v) {
		case "no":
			h.NoRewrite = true
			return ""
		case "yes":
			return ""
		}
		return "want no (to opt out) or yes"
	},
	"preempt": func(h *Hints, v string) string {
		switch strings.ToLower(v) {
		case "yes":
			h.Preempt = true
			return ""
		case "no":
			h.Preempt = false
			return ""
		}
		return "want yes (Strata may stop the job: it checkpoints and requeues itself on its signal) or no"
	},
	"signal": func(h *Hints, v string) string {
		s, ok := normalSignal(v)
		if !ok {
			return "want the signal your job traps to checkpoint and requeue: USR1, USR2, TERM, INT or HUP (SIG prefix allowed)"
		}
		h.Signal = s
		return ""
	},
	"restart": func(h *Hints, v string) string {
		d, err := time.ParseDuration(strings.ToLower(v))
		if err != nil || d <= 0 || d > MaxRestartCost {
			return "want how long one restart costs the job (checkpoint, requeue, start-up) as a duration such as 90s or 5m, at most 24h"
		}
		h.RestartCost = d
		return ""
	},
}

// check validates combinations of fields.
func (h *Hints) check() error {
	switch {
	case h.Model != "" && (h.Params > 0 || h.FLOPs > 0):
		return &HintError{Field: "params", Value: strconv.FormatInt(h.Params, 10), Fix: "give either model= or params= with flops=, not both"}
	case (h.Params > 0) != (h.FLOPs > 0):
		if h.Params > 0 {
			return &HintError{Field: "flops", Fix: "params= needs flops= (training FLOPs per sample)"}
		}
		return &HintError{Field: "params", Fix: "flops= needs params= (parameter count)"}
	case h.Iters > 0 && (h.Epochs > 0 || h.Samples > 0):
		return &HintError{Field: "iters", Value: strconv.FormatInt(h.Iters, 10), Fix: "give either iters= or epochs= with samples=, not both"}
	case (h.Epochs > 0) != (h.Samples > 0):
		if h.Epochs > 0 {
			return &HintError{Field: "samples", Fix: "epochs= needs samples= (training samples per epoch)"}
		}
		return &HintError{Field: "epochs", Fix: "samples= needs epochs="}
	case h.Arch == ArchSingle && h.GPUMax > 1:
		return &HintError{Field: "gpus", Value: fmt.Sprintf("%d-%d", h.GPUMin, h.GPUMax), Fix: "arch=single trains on one GPU; use gpus=1 or arch=allreduce"}
	case (h.PSAuto || h.PSMax > 0) && h.Arch != ArchPS && h.Arch != ArchUnset:
		return &HintError{Field: "ps", Value: h.psString(), Fix: "parameter servers need arch=ps; remove ps= or set arch=ps"}
	case h.Preempt && h.NoRewrite:
		return &HintError{Field: "preempt", Value: "yes", Fix: "rewrite=no asks Strata to leave the job alone, preempt=yes to stop and restart it; keep one"}
	case (h.Epochs > 0 || h.Iters > 0) && h.Batch == 0 && (h.Model != "" || h.Params > 0):
		return &HintError{Field: "batch", Fix: "give the mini-batch size (batch=N) so the work can be turned into time"}
	}
	return nil
}

func (h *Hints) psString() string {
	if h.PSAuto {
		return "auto"
	}
	return fmt.Sprintf("%d-%d", h.PSMin, h.PSMax)
}

// EffectiveArch returns the architecture to model: the hint's, else ps when
// ps= is given, else single for one GPU, else allreduce.
func (h Hints) EffectiveArch(maxGPUs int) Arch {
	switch {
	case h.Arch != ArchUnset:
		return h.Arch
	case h.PSAuto || h.PSMax > 0:
		return ArchPS
	case maxGPUs <= 1:
		return ArchSingle
	}
	return ArchAllReduce
}

// JobWeight is the JCT weight (1 when not given).
func (h Hints) JobWeight() float64 {
	if h.Weight > 0 {
		return h.Weight
	}
	return 1
}

// asciiLower lower-cases ASCII letters only, keeping every byte offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
