package planner

//go:generate go run ../scripts/gencatalog -traces=$STRATA_TRACES -o catalog_gen.go

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// LayerProfile is one layer of a layered profile: forward and backward time
// in ms per mini-batch of the model's ProfileBatch on its RefGPU, and the
// fp32 parameter (= gradient) bytes.
type LayerProfile struct {
	FwdMs      float64
	BwdMs      float64
	ParamBytes int64
}

// LayeredModel is a PipeDream-style per-layer profile.
type LayeredModel struct {
	Name         string
	ProfileBatch int
	// RefGPU is the GPU type the profile was measured on (for speed factors).
	RefGPU string
	// ActivationBytes is the memory of the layer outputs kept for the
	// backward pass at ProfileBatch (in-place layers and views excluded).
	ActivationBytes int64
	Layers          []LayerProfile
}

// CurvePoint is a measured step time at a GPU count. Approx marks points
// the source interpolated rather than measured.
type CurvePoint struct {
	GPUs        int
	StepSeconds float64
	Approx      bool
}

// ScalingCurve is a Pollux measured scaling curve of one (model, global
// batch size): seconds per step by GPU count.
type ScalingCurve struct {
	Model  string
	Batch  int
	RefGPU string
	Points []CurvePoint
}

// PolluxStartup is the start-up time Pollux adds to every run
// (duration = 30 s + iterations × step time).
const PolluxStartup = 30 * time.Second

// modelSummary holds the aggregates of a layered model used by the time
// model (per sample, seconds, on the reference GPU).
type modelSummary struct {
	*LayeredModel
	fwdPerSample, bwdPerSample float64 // Φ and Ψ, s per sample
	paramBytes                 float64 // S
	// hull is the upper envelope used by the layer-overlap variant: the
	// backward pass time is max_k (a_k·m/κ + B_k·f), see overlapBackward.
	hull []hullPoint
}

type hullPoint struct{ a, b float64 } // a: s per sample of backward prefix; b: bytes of suffix

// Catalog is the read-only model catalog: layered profiles and measured
// scaling curves. It is safe for concurrent use.
type Catalog struct {
	layered map[string]*modelSummary
	curves  map[string][]*ScalingCurve // by model, sorted by batch
	sized   map[string]ModelInfo       // timed from parameters and FLOPs
}

// defaultCatalog is built once from the generated constant tables.
var defaultCatalog = sync.OnceValue(func() *Catalog { return NewCatalog(pipedreamModels, polluxCurves) })

// DefaultCatalog returns the embedded catalog (14 PipeDream models, the
// Pollux curves of bert, cifar10, deepspeech2, imagenet, ncf and yolov3, and
// the models timed from their size, catalog_published.go).
// The returned catalog must not be modified.
func DefaultCatalog() *Catalog { return defaultCatalog() }

// NewCatalog builds a catalog from profiles and curves (names lower case).
func NewCatalog(models []LayeredModel, curves []ScalingCurve) *Catalog {
	c := &Catalog{layered: map[string]*modelSummary{}, curves: map[string][]*ScalingCurve{}, sized: map[string]ModelInfo{}}
	for _, mi := range sizedModels {
		c.sized[mi.Name] = mi
	}
	for i := range models {
		c.layered[models[i].Name] = summarize(&models[i])
	}
	for i := range curves {
		cv := curves[i]
		cv.Points = slices.Clone(cv.Points)
		sort.Slice(cv.Points, func(a, b int) bool { return cv.Points[a].GPUs < cv.Points[b].GPUs })
		c.curves[cv.Model] = append(c.curves[cv.Model], &cv)
	}
	for _, cs := range c.curves {
		sort.Slice(cs, func(a, b int) bool { return cs[a].Batch < cs[b].Batch })
	}
	return c
}

func summarize(m *LayeredModel) *modelSummary {
	s := &modelSummary{LayeredModel: m}
	per := 1e-3 / float64(max(1, m.ProfileBatch))
	for _, l := range m.Layers {
		s.fwdPerSample += l.FwdMs * per
		s.bwdPerSample += l.BwdMs * per
		s.paramBytes += float64(l.ParamBytes)
	}
	// Backward runs layers L..1; the gradient of a layer is pushed when its
	// backward step ends. For k-th layer in backward order, a_k = backward
	// compute up to and including it, b_k = bytes of it and all later ones.
	n := len(m.Layers)
	pts := make([]hullPoint, n)
	var a float64
	for k := range n {
		a += m.Layers[n-1-k].BwdMs * per
		pts[k].a = a
	}
	var b float64
	for k := n - 1; k >= 0; k-- {
		b += float64(m.Layers[n-1-k].ParamBytes)
		pts[k].b = b
	}
	s.hull = upperHull(pts)
	return s
}

// upperHull keeps the points that can maximise a + t·b for some t ≥ 0.
func upperHull(pts []hullPoint) []hullPoint {
	p := slices.Clone(pts)
	sort.Slice(p, func(i, j int) bool {
		if p[i].b != p[j].b {
			return p[i].b < p[j].b
		}
		return p[i].a < p[j].a
	})
	var h []hullPoint
	for _, q := range p {
		for len(h) > 0 && h[len(h)-1].a <= q.a && h[len(h)-1].b <= q.b {
			h = h[:len(h)-1] // dominated
		}
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) >= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h
}

func cross(o, a, b hullPoint) float64 {
	return (a.b-o.b)*(b.a-o.a) - (a.a-o.a)*(b.b-o.b)
}

// Layered returns the layered profile of a model.
func (c *Catalog) Layered(model string) (*LayeredModel, bool) {
	m, ok := c.layered[model]
	if !ok {
		return nil, false
	}
	return m.LayeredModel, true
}

// Models lists every model name (layered and curve models), sorted.
func (c *Catalog) Models() []string {
	var out []string
	for n := range c.layered {
		out = append(out, n)
	}
	for n := range c.curves {
		if _, dup := c.layered[n]; !dup {
			out = append(out, n)
		}
	}
	for n := range c.sized {
		if _, dup := c.layered[n]; !dup {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// RefGPU is the GPU type the model's profile or curves were measured on
// ("" when the catalog does not know the model).
func (c *Catalog) RefGPU(model string) string {
	if m, ok := c.layered[model]; ok {
		return m.RefGPU
	}
	for _, cv := range c.curves[model] {
		return cv.RefGPU
	}
	return ""
}

// Has reports whether the catalog knows the model.
func (c *Catalog) Has(model string) bool {
	_, l := c.layered[model]
	_, cv := c.curves[model]
	_, sz := c.sized[model]
	return l || cv || sz
}

// Sized returns the model's size basis when the catalog times it from its
// parameters and FLOPs.
func (c *Catalog) Sized(model string) (ModelInfo, bool) {
	mi, ok := c.sized[model]
	return mi, ok
}

// CurveBatches lists the batch sizes with a scaling curve for the model.
func (c *Catalog) CurveBatches(model string) []int {
	var out []int
	for _, cv := range c.curves[model] {
		out = append(out, cv.Batch)
	}
	return out
}

func (c *Catalog) curve(model string, batch int) *ScalingCurve {
	for _, cv := range c.curves[model] {
		if cv.Batch == batch {
			return cv
		}
	}
	return nil
}

// StepTime returns the measured time per step of a curve model at its
// (global) batch size on gpus GPUs, interpolating linearly between measured
// GPU counts. It is false when there is no curve for (model, batch) or
// gpus lies outside the measured range (1..64).
func (c *Catalog) StepTime(model string, batch, gpus int) (time.Duration, bool) {
	cv := c.curve(model, batch)
	if cv == nil || gpus < 1 {
		return 0, false
	}
	s, ok := cv.stepSeconds(gpus)
	return time.Duration(s * float64(time.Second)), ok
}

func (cv *ScalingCurve) stepSeconds(gpus int) (float64, bool) {
	p := cv.Points
	i := sort.Search(len(p), func(i int) bool { return p[i].GPUs >= gpus })
	switch {
	case i == len(p):
		return 0, false
	case p[i].GPUs == gpus:
		return p[i].StepSeconds, true
	case i == 0:
		return 0, false
	}
	lo, hi := p[i-1], p[i]
	f := float64(gpus-lo.GPUs) / float64(hi.GPUs-lo.GPUs)
	return lo.StepSeconds + f*(hi.StepSeconds-lo.StepSeconds), true
}

// curveAt is the curve of (model, batch): measured, or interpolated
// linearly in the batch size between the two measured batches around it
// (at the GPU counts both measured); nil outside the measured batches.
func (c *Catalog) curveAt(model string, batch int) *ScalingCurve {
	if cv := c.curve(model, batch); cv != nil {
		return cv
	}
	cs := c.curves[model]
	i := sort.Search(len(cs), func(i int) bool { return cs[i].Batch >= batch })
	if i == 0 || i == len(cs) {
		return nil
	}
	lo, hi := cs[i-1], cs[i]
	f := float64(batch-lo.Batch) / float64(hi.Batch-lo.Batch)
	out := &ScalingCurve{Model: model, Batch: batch, RefGPU: lo.RefGPU}
	for _, p := range lo.Points {
		if s, ok := hi.stepSeconds(p.GPUs); ok {
			out.Points = append(out.Points, CurvePoint{GPUs: p.GPUs, StepSeconds: p.StepSeconds + f*(s-p.StepSeconds), Approx: true})
		}
	}
	if len(out.Points) == 0 {
		return nil
	}
	return out
}

// CurveRange is the smallest and largest measured batch of a curve model
// (false for models without curves): batches between them are interpolated.
func (c *Catalog) CurveRange(model string) (int, int, bool) {
	cs := c.curves[model]
	if len(cs) == 0 {
		return 0, 0, false
	}
	return cs[0].Batch, cs[len(cs)-1].Batch, true
}

// SuggestModels is the did-you-mean for an unknown model name: every model
// of the family it names or starts (llama → llama-7b, llama-13b, ...), else
// the closest name; nil when none is close.
func (c *Catalog) SuggestModels(name string) []string {
	name = strings.ToLower(name)
	var out []string
	for _, m := range c.Models() {
		mi, sized := c.sized[m]
		if sized && mi.Family == name || len(name) >= 3 && strings.HasPrefix(m, name) {
			out = append(out, m)
		}
	}
	if len(out) > 0 {
		return out
	}
	if s := Suggest(name, c.Models()); s != "" {
		return []string{s}
	}
	return nil
}
