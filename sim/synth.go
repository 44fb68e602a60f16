package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// SynthSpec describes a synthetic trace resampled from real ones.
type SynthSpec struct {
	Jobs int
	// ClusterGPUs and Load set the arrival rate: inter-arrival gaps are
	// scaled so that the offered load Σ gpus·duration / (ClusterGPUs ·
	// span) is Load (e.g. 0.9).
	ClusterGPUs int
	Load        float64
	// MaxGPUs drops sampled sizes above it (e.g. one node group).
	MaxGPUs int
	// MaxDuration caps sampled durations (seconds); 0 = no cap.
	MaxDuration float64
	Seed        uint64
}

// Synthesize builds a trace of spec.Jobs jobs: (gpus, duration) pairs are
// drawn jointly from the jobs of sizeFrom, and inter-arrival gaps from the
// consecutive submissions of gapsFrom (each trace's own gaps), then scaled
// to the target load. The result is a pure function of the inputs and seed.
func Synthesize(spec SynthSpec, sizeFrom, gapsFrom []*Trace) (*Trace, error) {
	var sizes []TraceJob
	for _, tr := range sizeFrom {
		for _, j := range tr.Jobs {
			if j.GPUs >= 1 && (spec.MaxGPUs <= 0 || j.GPUs <= spec.MaxGPUs) {
				if spec.MaxDuration > 0 {
					j.Duration = min(j.Duration, spec.MaxDuration)
				}
				sizes = append(sizes, TraceJob{GPUs: j.GPUs, Duration: j.Duration})
			}
		}
	}
	var gaps []float64
	for _, tr := range gapsFrom {
		for i := 1; i < len(tr.Jobs); i++ {
			gaps = append(gaps, tr.Jobs[i].Submit-tr.Jobs[i-1].Submit)
		}
	}
	if len(sizes) == 0 || len(gaps) == 0 || spec.Jobs <= 0 || spec.ClusterGPUs <= 0 || spec.Load <= 0 {
		return nil, errors.New("synthesize: need jobs with GPUs, at least two arrivals, and positive Jobs, ClusterGPUs and Load")
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5157a7a))
	out := &Trace{Jobs: make([]TraceJob, spec.Jobs)}
	var work, span float64
	for i := range out.Jobs {
		s := sizes[rng.IntN(len(sizes))]
		g := 0.0
		if i > 0 {
			g = gaps[rng.IntN(len(gaps))]
		}
		span += g
		work += float64(s.GPUs) * s.Duration
		out.Jobs[i] = TraceJob{ID: strconv.Itoa(i), Submit: span, Duration: s.Duration, GPUs: s.GPUs}
	}
	if span <= 0 {
		return nil, fmt.Errorf("synthesize: sampled gaps sum to %v", span)
	}
	scale := work / (spec.Load * float64(spec.ClusterGPUs) * span)
	for i := range out.Jobs {
		out.Jobs[i].Submit = round(out.Jobs[i].Submit*scale, 0)
	}
	return out, nil
}
