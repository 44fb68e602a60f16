package planner

import (
	"fmt"
	"math"
	"strings"
)

// TimingBasis says how the time model timed a job on a GPU type: the
// catalog row or rule it used, its source, and the resulting speed factor
// κ (relative to the model's profile or to reference-tflops).
type TimingBasis struct {
	Model     string    `json:"model,omitempty"`
	GPU       string    `json:"gpu,omitempty"`
	Precision Precision `json:"precision,omitempty"`
	Rule      string    `json:"rule"`
	Source    string    `json:"source,omitempty"`
	Speed     float64   `json:"speed"`
	// SpreadLow and SpreadHigh bound the run time as multiples of the
	// modelled one where the catalog has a published range (the MFU range
	// for models timed from their size); 0 where it has none.
	SpreadLow  float64 `json:"spread_low,omitempty"`
	SpreadHigh float64 `json:"spread_high,omitempty"`
}

// onGPU binds the model to the job's GPU type and returns its speed factor
// (see basis). A typed GPU that is neither built in nor in [planner]
// gpu-speed turns the model opaque: the job is timed from history or its
// time limit (ReasonGPUUnknown), as a job without a model.
func (m *jobModel) onGPU(o *Options, gpuType string) float64 {
	if m.kind != kindOpaque && gpuType != "" {
		_, site := o.GPUSpeed[strings.ToLower(gpuType)]
		if _, known := LookupGPU(gpuType); !known && !site {
			m.kind, m.reason, m.summary, m.curve = kindOpaque, ReasonGPUUnknown, nil, nil
			return 1
		}
	}
	b := m.basis(o, gpuType)
	return b.Speed
}

// basis decides the speed factor of the job's model on gpuType, in order:
// the site's [planner] gpu-speed for that type; a published row for
// (model, GPU, precision), the model calibrated to it; a published row of
// the model on another GPU at that precision, scaled by the datasheet
// peaks and memory bandwidths (scale); for models timed from their size, the datasheet peak at a typical
// MFU; for profiled models, the ratio of published ResNet-50 throughputs.
// A GPU type Strata does not know keeps the model's reference GPU.
func (m *jobModel) basis(o *Options, gpuType string) TimingBasis {
	b := TimingBasis{Model: m.name, Precision: m.prec}
	if _, site := o.GPUSpeed[strings.ToLower(gpuType)]; site || m.kind == kindOpaque || gpuType == "" {
		b.Speed = speed(o, gpuType, m.refGPU)
		b.Rule = "the catalog's reference GPU"
		if site {
			b.GPU, b.Rule = strings.ToLower(gpuType), "the site's [planner] gpu-speed"
		}
		return b
	}
	g, ok := LookupGPU(gpuType)
	if !ok {
		b.Speed = 1
		b.Rule = fmt.Sprintf("GPU type %q is neither built in nor in [planner] gpu-speed: the planner times the job from history or its time limit", gpuType)
		return b
	}
	p := g.Effective(m.prec)
	b.GPU, b.Precision = g.Name, p
	if m.prec == PrecisionUnset && g.Name == legacyGPU && m.kind != kindAggregate {
		b.Speed = speed(o, gpuType, m.refGPU)
		b.Rule = "no precision= on " + legacyGPU + ": the catalog's profile as measured, unscaled (as before the published table; give precision= to use it)"
		return b
	}
	if row, ok := publishedRow(m.name, g.Name, p); ok {
		b.Speed = m.calibrated(row, o)
		b.Rule = fmt.Sprintf("published %g samples/s on %d × %s, %s", row.SamplesPerSec, row.GPUs, row.GPU, p)
		b.Source = row.Source
		return b
	}
	if row, g2, ok := nearestRow(m.name, g, p); ok {
		b.Speed = m.calibrated(row, o) * scale(g, g2, p)
		b.Rule = fmt.Sprintf("published %g samples/s on %d × %s, %s, scaled by %.2f, the geometric mean of the datasheet peaks' ratio (%s %g / %s %g TFLOPS) and the memory bandwidths' (%g / %g GB/s)",
			row.SamplesPerSec, row.GPUs, row.GPU, p, scale(g, g2, p), g.Name, g.Peak(p), g2.Name, g2.Peak(p), g.MemGBps, g2.MemGBps)
		b.Source = row.Source + "; " + g.Source
		return b
	}
	if m.kind == kindAggregate {
		b.Speed = g.Peak(p) * 1e12 * MFUTypical / o.ReferenceFLOPS
		b.Rule = fmt.Sprintf("%s peak %g TFLOPS (%s) at %.0f %% MFU", g.Name, g.Peak(p), p, 100*MFUTypical)
		b.Source = mfuSource + "; " + g.Source
		b.SpreadLow, b.SpreadHigh = MFUTypical/MFUHigh, MFUTypical/MFULow
		return b
	}
	b.Speed, b.Rule, b.Source = profileSpeed(m.refGPU, g, p, o)
	return b
}

// legacyGPU is the GPU the Pollux traces and curves were measured on: jobs
// on it without precision= keep the catalog's profile speed (κ = 1, or the
// site's gpu-speed), so the traces replay as measured.
const legacyGPU = "t4"

// profileSpeed scales a profile measured in fp32 on ref to g at p by the
// published ResNet-50 throughputs (the catalog's yardstick).
func profileSpeed(ref string, g GPUSpec, p Precision, o *Options) (float64, string, string) {
	r, ok := LookupGPU(ref)
	if !ok {
		return speed(o, g.Name, ref), "the catalog's reference GPU", ""
	}
	if r.Name == g.Name && p == PrecisionFP32 {
		return 1, fmt.Sprintf("the catalog's profile, measured in fp32 on %s", r.Name), ""
	}
	at, src1 := yardstick(g, p)
	base, src2 := yardstick(r, PrecisionFP32)
	if at <= 0 || base <= 0 {
		return 1, "the catalog's reference GPU", ""
	}
	rule := fmt.Sprintf("profile measured in fp32 on %s, scaled by ResNet-50 throughput %s %s / %s fp32 (%.0f / %.0f samples/s per GPU)",
		r.Name, g.Name, p, r.Name, at, base)
	return at / base, rule, src1 + "; " + src2
}

// yardstick is the per-GPU ResNet-50 throughput on g at p: published, or
// the nearest published GPU's scaled by its datasheet (scale).
func yardstick(g GPUSpec, p Precision) (float64, string) {
	if row, ok := publishedRow("resnet50", g.Name, p); ok {
		return row.SamplesPerSec / float64(row.GPUs), row.Source
	}
	if row, g2, ok := nearestRow("resnet50", g, p); ok {
		return row.SamplesPerSec / float64(row.GPUs) * scale(g, g2, p), row.Source + "; " + g.Source
	}
	return 0, ""
}

// scale is the speed of g relative to g2 at p for a model published on
// g2: the geometric mean of their datasheet peak and memory-bandwidth
// ratios, as training is partly compute- and partly memory-bound. Held
// out a GPU at a time (TestDatasheetScalingHeldOut), the peak ratio alone
// timed H200 at H100's speed (0.76–0.83 × its published times; H200 has
// 1.4 × the bandwidth at the same peak) and ResNet-50 amp on A10 0.62 ×
// its published time (A10 has V100's amp peak and 2/3 its bandwidth); the
// mean brings the 44 published rows' median error from 1.27 × to 1.11 ×.
func scale(g, g2 GPUSpec, p Precision) float64 {
	c := g.Peak(p) / g2.Peak(p)
	if g.MemGBps <= 0 || g2.MemGBps <= 0 {
		return c
	}
	return math.Sqrt(c * g.MemGBps / g2.MemGBps)
}

// publishedRow is the row of (model, gpu, p) measured on the most GPUs.
func publishedRow(model, gpu string, p Precision) (Published, bool) {
	var best Published
	for _, r := range publishedThroughputs {
		if r.Model == model && r.GPU == gpu && r.Precision == p && r.GPUs > best.GPUs {
			best = r
		}
	}
	return best, best.GPUs > 0
}

// nearestRow is the model's published row at p on the GPU whose datasheet
// peak at p is closest to g's (on the most GPUs).
func nearestRow(model string, g GPUSpec, p Precision) (Published, GPUSpec, bool) {
	var best Published
	var bestG GPUSpec
	bestD := math.Inf(1)
	for _, r := range publishedThroughputs {
		if r.Model != model || r.GPU == g.Name {
			continue
		}
		g2, ok := LookupGPU(r.GPU)
		if !ok || g2.Effective(p) != r.Precision {
			continue
		}
		d := math.Abs(math.Log(g.Peak(p) / g2.Peak(p)))
		if d < bestD || d == bestD && r.GPUs > best.GPUs {
			best, bestG, bestD = r, g2, d
		}
	}
	return best, bestG, best.GPUs > 0
}

// calibrated is the speed factor at which the model's data-parallel
// throughput on row.GPUs GPUs equals the published one, at the batch per
// GPU the row was measured at where it says (the job's batch otherwise):
// a figure measured at a batch of 1280 per GPU barely pays for its
// gradient exchange, and calibrating it at a job's batch of 32 would read
// the exchange as a slow GPU.
func (m *jobModel) calibrated(row Published, o *Options) float64 {
	c := *m
	c.arch, c.calib = ArchAllReduce, 0
	if row.Batch > 0 {
		c.batch = float64(row.Batch)
		if c.kind == kindCurve {
			c.batch *= float64(row.GPUs) // a curve's batch is global
		}
	}
	if row.GPUs == 1 {
		c.arch = ArchSingle
	}
	rate := func(k float64) float64 {
		t, ok := c.throughput(row.GPUs, 0, o.NodeGPUs, k, o)
		if !ok {
			return 0
		}
		return t
	}
	lo, hi := math.Log(1e-4), math.Log(1e5)
	for range 80 {
		mid := (lo + hi) / 2
		if rate(math.Exp(mid)) < row.SamplesPerSec {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp(hi)
}

// TimingBasisOf says how EstimateDuration times job j on its GPU type
// (false when the job has no catalog model: it is timed from history).
func TimingBasisOf(j *Job, o Options) (TimingBasis, bool) {
	o = o.withDefaults()
	h, ok, err := ParseHints(j.Comment)
	if err != nil || !ok {
		return TimingBasis{}, false
	}
	m := newJobModel(h, ok, &o)
	if m.kind == kindOpaque {
		return TimingBasis{}, false
	}
	return m.basis(&o, j.GPUType), true
}
