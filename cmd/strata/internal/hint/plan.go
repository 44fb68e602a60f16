package hint

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/planner"
)

// sized is the hint as the planner will see it: the GPU counts it may
// choose after the site's caps, and the caps that applied.
type sized struct {
	hints    planner.Hints
	lo, hi   int // the counts the planner may choose
	fixedReq bool
	gpus     string
	caps     []string
}

// plan applies the site's caps (planner.Options.Limits, through the
// planner's own planner.CapRequest) to the hint's weight and gpus= range. The request is
// the script's GPUs; a comment checked alone has no request, so the caps
// that depend on it are stated, not applied.
func plan(h planner.Hints, ok bool, s *Script, o Options) sized {
	p := sized{hints: h}
	req := 0
	if s != nil {
		req = s.GPUs
	}
	if h.GPUMax == 0 {
		p.fixedReq = true
		p.lo, p.hi = max(1, req), max(1, req)
		switch {
		case s == nil:
			p.gpus = "fixed: the job's --gres/--gpus request (check the script to model it; modelled here on 1)"
		case req == 0:
			p.gpus = "fixed: the script asks for no GPUs (modelled on 1)"
		default:
			p.gpus = fmt.Sprintf("fixed: %d (the script's --gres/--gpus × --nodes)", req)
		}
	} else {
		p.lo, p.hi = h.GPUMin, h.GPUMax
	}
	if !ok {
		return p
	}
	r := planner.Request{Fixed: p.fixedReq, GPUMin: p.lo, GPUMax: p.hi, Weight: p.hints.JobWeight()}
	if s != nil {
		r.Partition, r.Account, r.Req, r.ReqKnown = s.Partition, s.Account, req, true
	}
	c := planner.CapRequest(o.Planner.Limits, r) // the planner's own rule
	p.lo, p.hi, p.caps = c.GPUMin, c.GPUMax, c.Notes
	if c.Weight != r.Weight {
		p.hints.Weight = c.Weight
	}
	if !p.fixedReq {
		capped := p.hi != h.GPUMax || p.lo != h.GPUMin
		keep := keptRequest(&p, s, req, &o.Planner)
		p.gpus = fmt.Sprintf("%d-%d (the planner chooses in this range%s)", p.lo, p.hi, keep)
		if capped {
			p.gpus = fmt.Sprintf("%d-%d (the planner chooses in this range; gpus=%d-%d capped by the site%s)", p.lo, p.hi, h.GPUMin, h.GPUMax, keep)
		}
	}
	return p
}

// keptRequest raises the range's low end to the script's request where
// the site keeps requests (planner.Options.KeepRequest: no job is planned
// on fewer GPUs than it asked for) and says so; a comment checked alone
// has no request, so the rule is stated.
func keptRequest(p *sized, s *Script, req int, o *planner.Options) string {
	switch {
	case !o.KeepRequest || p.lo >= p.hi:
		return ""
	case s == nil:
		return "; never fewer than the job's --gres/--gpus request: the site keeps requests"
	}
	if least := planner.MinSize(o, req, p.lo, p.hi); least > p.lo {
		p.lo = least
		return fmt.Sprintf("; never fewer than the script's %d: the site keeps requests, shrink = true would allow fewer", req)
	}
	return ""
}

// counts are the GPU counts shown: the ends of the range and the powers of
// two between them.
func counts(lo, hi int) []int {
	out := []int{lo}
	for g := 1; g < hi; g *= 2 {
		if g > lo {
			out = append(out, g)
		}
	}
	if hi > lo {
		out = append(out, hi)
	}
	return out
}

// modelRuns is the modelled run time at each count of p's range, when the
// hint has a model and an amount of work; otherwise why there is none.
func modelRuns(comment string, p sized, o Options) ([]Run, string) {
	h := p.hints
	if (h.Model == "" && h.Params == 0) || (h.Iters == 0 && h.Epochs == 0) {
		return nil, "give model= or params=, and iters= or epochs=, to see it"
	}
	var runs []Run
	for _, g := range counts(p.lo, p.hi) {
		ps := 0
		if h.EffectiveArch(p.hi) == planner.ArchPS {
			ps = max(1, g/2)
		}
		d, r, err := planner.EstimateDuration(&planner.Job{Comment: comment, GPUsPerJob: g, GPUType: o.GPUType}, g, ps, o.Planner)
		if err != nil {
			return nil, err.Error()
		}
		if r != planner.ReasonModelled {
			return nil, "the catalog has no time model for this model and batch"
		}
		runs = append(runs, Run{GPUs: g, Seconds: d.Seconds()})
	}
	return runs, ""
}

// runsLine is the modelled run-time line of the text output, with the
// catalog row or rule that timed it.
func runsLine(h planner.Hints, runs []Run, why string, cat *planner.Catalog, by *planner.TimingBasis) string {
	if len(runs) == 0 {
		return fmt.Sprintf("modelled run time: none (%s)\n", why)
	}
	parts := make([]string, len(runs))
	slower := false
	for i, r := range runs {
		parts[i] = fmt.Sprintf("%d GPUs %s", r.GPUs, fmtDuration(seconds(r.Seconds)))
		if r.LowSeconds > 0 {
			parts[i] += fmt.Sprintf(" (%s–%s)", fmtDuration(seconds(r.LowSeconds)), fmtDuration(seconds(r.HighSeconds)))
		}
		slower = slower || i > 0 && r.Seconds > runs[i-1].Seconds+1
	}
	var line string
	if by != nil && by.GPU != "" {
		line = fmt.Sprintf("modelled run time on %s (%s): %s\ntimed by: %s\n", by.GPU, by.Precision, strings.Join(parts, ", "), by.Rule)
		if by.Source != "" {
			line += "source: " + by.Source + "\n"
		}
	} else {
		line = fmt.Sprintf("modelled run time on the catalog's reference GPU (%s; name a GPU type with --gres=gpu:TYPE:N or --gpu-type): %s\n",
			refGPU(h, cat), strings.Join(parts, ", "))
	}
	if slower {
		line += "(more GPUs can be slower: gradients are exchanged every step, and past some count that costs more than the extra GPUs save)\n"
	}
	return line
}

// refGPU names the GPU the catalog's profile of h's model was measured on.
func refGPU(h planner.Hints, cat *planner.Catalog) string {
	if g := cat.RefGPU(h.Model); g != "" {
		return g
	}
	return "reference-tflops"
}
