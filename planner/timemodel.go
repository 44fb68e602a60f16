package planner

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// modelDefaults fills the time-model defaults.
func (o Options) modelDefaults() Options {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.WorkerBandwidthBps, 1.25e9)
	def(&o.PSBandwidthBps, 1.25e9)
	def(&o.IntraNodeBps, 50e9)
	def(&o.InterNodeBps, 12.5e9)
	def(&o.ReferenceFLOPS, 10e12)
	if o.NodeGPUs <= 0 {
		o.NodeGPUs = 8
	}
	if o.DefaultDuration <= 0 {
		o.DefaultDuration = time.Hour
	}
	if o.StarvationAge <= 0 {
		o.StarvationAge = 24 * time.Hour
	}
	if o.StarvationStretch == 0 {
		o.StarvationStretch = 4
	}
	if o.StarvationMaxWait <= 0 {
		o.StarvationMaxWait = 7 * 24 * time.Hour
	}
	if o.MaxOptionsPerJob <= 0 {
		o.MaxOptionsPerJob = 12
	}
	def(&o.GPUWatts, 300)
	def(&o.LongJobShare, 0.25)
	if o.LongJob <= 0 {
		o.LongJob = 2 * time.Hour
	}
	if o.PSComm == "" {
		o.PSComm = PSCommOverlap
	}
	if o.Catalog == nil {
		o.Catalog = DefaultCatalog()
	}
	return o
}

// modelKind says how a job's duration is computed.
type modelKind int

const (
	kindOpaque    modelKind = iota // no description: predictor / time limit, fixed size
	kindLayered                    // PipeDream layered profile
	kindAggregate                  // params= + flops=
	kindCurve                      // Pollux measured curve
)

// jobModel is everything the time model needs about one job.
type jobModel struct {
	kind    modelKind
	arch    Arch
	batch   float64
	summary *modelSummary // layered or aggregate
	curve   *ScalingCurve
	refGPU  string
	// name is the catalog model ("" for params=/flops=); prec the
	// precision= hint (unset: the GPU's default).
	name string
	prec Precision
	// iters is the fixed iteration count (iters=); samples the total
	// samples (epochs × samples) when given; both 0 = no work amount, and
	// the duration scales a base prediction by relative throughput.
	iters, samples float64
	reason         Reason // duration source
	// calib is the measured speed factor (Snapshot.Calibration) applied
	// to modelled run times; 0 = none.
	calib float64
}

// newJobModel builds the job's time model from its parsed hints.
func newJobModel(h Hints, hasHints bool, o *Options) jobModel {
	m := jobModel{kind: kindOpaque, reason: ReasonNoHint, batch: float64(h.Batch)}
	if !hasHints {
		return m
	}
	m.iters = float64(h.Iters)
	m.samples = float64(h.Epochs) * float64(h.Samples)
	m.reason = ReasonModelUnknown
	m.name, m.prec = h.Model, h.Precision
	switch {
	case h.Model != "":
		if s, ok := o.Catalog.layered[h.Model]; ok && h.Batch > 0 {
			m.kind, m.summary, m.refGPU = kindLayered, s, s.RefGPU
		} else if mi, ok := o.Catalog.sized[h.Model]; ok && h.Batch > 0 {
			m.kind, m.summary = kindAggregate, aggregateSummary(mi.Name, mi.Params, mi.FLOPs, o.ReferenceFLOPS)
		} else if cv := o.Catalog.curveAt(h.Model, h.Batch); cv != nil {
			m.kind, m.curve, m.refGPU = kindCurve, cv, cv.RefGPU
		} else {
			return m
		}
	case h.Params > 0 && h.Batch > 0:
		m.kind, m.summary = kindAggregate, aggregateSummary("params+flops", float64(h.Params), h.FLOPs, o.ReferenceFLOPS)
	default:
		m.reason = ReasonFixedGPUs
		return m
	}
	m.reason = ReasonModelled
	m.arch = h.EffectiveArch(max(h.GPUMax, 2))
	if m.kind == kindCurve {
		m.arch = ArchAllReduce // measured as data-parallel all-reduce
	}
	return m
}

// aggregateSummary models a model given by its size as one layer: forward
// 1/3 and backward 2/3 of the training FLOPs per sample at refFLOPS, fp32
// parameters (and gradients).
func aggregateSummary(name string, params, flops, refFLOPS float64) *modelSummary {
	perSample := flops / refFLOPS
	s := &modelSummary{
		LayeredModel: &LayeredModel{Name: name, ProfileBatch: 1},
		fwdPerSample: perSample / 3, bwdPerSample: perSample * 2 / 3,
		paramBytes: 4 * params,
	}
	s.hull = []hullPoint{{a: s.bwdPerSample, b: s.paramBytes}}
	return s
}

// gpuMemBytes estimates one worker's GPU memory: 4 copies of the fp32
// parameters plus the stored activations at the job's batch; false when
// the model gives no estimate (curve models, no model).
func (m *jobModel) gpuMemBytes() (int64, bool) {
	switch m.kind {
	case kindLayered:
		act := float64(m.summary.ActivationBytes) * m.batch / float64(max(1, m.summary.ProfileBatch))
		return int64(4*m.summary.paramBytes + act), true
	case kindAggregate:
		return int64(4 * m.summary.paramBytes), true
	}
	return 0, false
}

// speed returns κ: the job GPU's speed relative to the profile's GPU.
func speed(o *Options, gpuType, ref string) float64 {
	f := func(t string) float64 {
		if v, ok := o.GPUSpeed[strings.ToLower(t)]; ok && t != "" {
			return v
		}
		return 1
	}
	return f(gpuType) / f(ref)
}

// iterSeconds is τ(w,p): seconds per iteration on w workers and p PSs.
func (m *jobModel) iterSeconds(w, p, nodeGPUs int, kappa float64, o *Options) (float64, bool) {
	if m.kind == kindCurve {
		s, ok := m.curve.stepSeconds(w)
		return s / kappa, ok
	}
	s := m.summary
	mb := m.batch / kappa
	compute := mb * (s.fwdPerSample + s.bwdPerSample)
	var f float64 // seconds per byte of one push (or all-reduce)
	switch {
	case m.arch == ArchSingle || w == 1 && m.arch == ArchAllReduce:
		return compute, true
	case m.arch == ArchPS:
		f = math.Max(1/o.WorkerBandwidthBps, float64(w)/(float64(max(p, 1))*o.PSBandwidthBps))
	default:
		bw := o.IntraNodeBps
		if w > nodeGPUs {
			bw = o.InterNodeBps
		}
		f = 2 * float64(w-1) / float64(w) / bw
	}
	if o.PSComm == PSCommNoOverlap {
		if m.arch == ArchPS {
			return compute + 2*s.paramBytes*f, true
		}
		return compute + s.paramBytes*f, true
	}
	bp := overlapBackward(s.hull, mb, f)
	if m.arch == ArchPS {
		return mb*s.fwdPerSample + bp + s.paramBytes*f, true // pull not overlapped
	}
	return mb*s.fwdPerSample + bp, true
}

// overlapBackward is T^bp = max_k (a_k·mb + b_k·f), the two-machine flow
// shop of backward compute and gradient pushes (algorithms.md A1.1).
func overlapBackward(hull []hullPoint, mb, f float64) float64 {
	best := 0.0
	for _, h := range hull {
		best = math.Max(best, h.a*mb+h.b*f)
	}
	return best
}

// throughput is samples per second at (w, p); for curve models the batch
// is global, for the others per worker.
func (m *jobModel) throughput(w, p, nodeGPUs int, kappa float64, o *Options) (float64, bool) {
	t, ok := m.iterSeconds(w, p, nodeGPUs, kappa, o)
	if !ok || t <= 0 {
		return 0, false
	}
	if m.kind == kindCurve {
		return m.batch / t, true
	}
	return float64(w) * m.batch / t, true
}

// modelSeconds returns the modelled run time at (w, p), or false when the
// job has no work amount (then durations scale a base prediction).
func (m *jobModel) modelSeconds(w, p, nodeGPUs int, kappa float64, o *Options) (float64, bool) {
	t, ok := m.iterSeconds(w, p, nodeGPUs, kappa, o)
	if !ok {
		return 0, false
	}
	var q float64
	switch {
	case m.iters > 0:
		q = m.iters
	case m.samples > 0 && m.kind == kindCurve:
		q = math.Ceil(m.samples / m.batch)
	case m.samples > 0:
		q = math.Ceil(m.samples / (float64(w) * m.batch))
	default:
		return 0, false
	}
	sec := q * t
	if m.kind == kindCurve {
		sec += PolluxStartup.Seconds()
	}
	if m.calib > 0 {
		sec *= m.calib
	}
	return sec, true
}

// baseDuration is the duration of a job without a modelled work amount
// at its requested size: predictor, then time limit, then the default.
func baseDuration(j *Job, gpus int, o *Options) (time.Duration, Reason) {
	if o.Predictor != nil {
		if d, ok := o.Predictor.Predict(j, gpus); ok && d > 0 {
			if j.TimeLimit > 0 && d > j.TimeLimit {
				d = j.TimeLimit
			}
			return d, ReasonPredicted
		}
	}
	if j.TimeLimit > 0 {
		return j.TimeLimit, ReasonTimeLimit
	}
	return o.DefaultDuration, ReasonDurationDefault
}

// EstimateDuration is the time model's answer for job j on workers GPUs
// and ps parameter servers (ps is ignored unless the job trains with
// arch=ps). Jobs with a catalog model (or params+flops) and a work amount
// get the modelled time; jobs with a model but no work amount get the
// predictor's (or time limit's) duration at the requested size, scaled by
// the modelled throughput ratio; other jobs get the predictor's answer,
// capped by the time limit, then the time limit, then DefaultDuration.
// The Reason names the source. An invalid hint is an error (*HintError).
func EstimateDuration(j *Job, workers, ps int, o Options) (time.Duration, Reason, error) {
	if workers < 1 {
		return 0, "", fmt.Errorf("estimate duration of job %d: workers %d < 1", j.ID, workers)
	}
	o = o.withDefaults()
	h, ok, err := ParseHints(j.Comment)
	if err != nil {
		return 0, ReasonHintInvalid, fmt.Errorf("estimate duration of job %d: %w", j.ID, err)
	}
	m := newJobModel(h, ok, &o)
	d, r := m.duration(j, workers, ps, o.NodeGPUs, m.onGPU(&o, j.GPUType), &o)
	return d, r, nil
}

// duration implements EstimateDuration for a built model.
func (m *jobModel) duration(j *Job, w, p, nodeGPUs int, kappa float64, o *Options) (time.Duration, Reason) {
	d, r := m.claimedDuration(j, w, p, nodeGPUs, kappa, o)
	return corrected(j, d), r
}

// corrected applies the user's record (Job.Claim) to a predicted run time:
// a distrusted claim is timed by the time limit (or the correction, if
// longer); otherwise the prediction is multiplied by the factor, never past
// the time limit (Slurm stops the job there).
func corrected(j *Job, d time.Duration) time.Duration {
	c := j.Claim
	if c.IsZero() {
		return d
	}
	f := c.Factor
	if f <= 0 {
		f = 1
	}
	out := seconds(d.Seconds() * f)
	if c.Distrust && j.TimeLimit > out {
		return j.TimeLimit
	}
	if j.TimeLimit > 0 && out > j.TimeLimit && d <= j.TimeLimit {
		return j.TimeLimit
	}
	return out
}

// claimedDuration is the prediction from the job's hint (or history)
// before its user's record corrects it.
func (m *jobModel) claimedDuration(j *Job, w, p, nodeGPUs int, kappa float64, o *Options) (time.Duration, Reason) {
	if m.kind != kindOpaque {
		if sec, ok := m.modelSeconds(w, p, nodeGPUs, kappa, o); ok {
			return seconds(sec), ReasonModelled
		}
		req := max(1, j.GPUs())
		base, r := baseDuration(j, req, o)
		t0, ok0 := m.throughput(req, max(1, p), nodeGPUs, kappa, o)
		t1, ok1 := m.throughput(w, p, nodeGPUs, kappa, o)
		if ok0 && ok1 {
			return seconds(base.Seconds() * t0 / t1), r
		}
		return base, ReasonModelUnknown
	}
	d, r := baseDuration(j, w, o)
	if m.reason == ReasonModelUnknown || m.reason == ReasonGPUUnknown {
		r = m.reason
	}
	return d, r
}

// MaxModelledDuration is the longest duration the time model answers:
// longer (or nonsensical: NaN, negative) estimates saturate here, so no hint
// can make a job look short by overflowing time.Duration (≈ 292 years).
const MaxModelledDuration = 100 * 365 * 24 * time.Hour

// seconds converts a modelled time to a Duration, saturating at
// MaxModelledDuration.
func seconds(s float64) time.Duration {
	if !(s >= 0) || s >= MaxModelledDuration.Seconds() {
		return MaxModelledDuration
	}
	return time.Duration(math.Round(s * float64(time.Second)))
}
