package planner

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Calibration is what finished jobs measured about the time model and the
// GPUs' power (fitted by planner/calib from the collector's records; the
// simulator fits it online). Policies read it from the Snapshot: a modelled
// run time of a job whose (model, GPU type) has a speed factor is
// multiplied by it, and the energy term of SMD's objective uses a GPU
// type's measured busy power instead of Options.GPUWatts. Both lists are
// sorted by their keys.
type Calibration struct {
	Speed []SpeedFactor `json:"speed,omitempty"`
	Power []GPUPower    `json:"power,omitempty"`
}

// SpeedFactor is the measured correction of the time model for one
// catalog model on one GPU type: real run time / modelled run time.
type SpeedFactor struct {
	Model   string  `json:"model"`
	GPUType string  `json:"gpu_type"` // lower case
	Factor  float64 `json:"factor"`
	Jobs    int     `json:"jobs"` // finished jobs behind the factor
}

// GPUPower is the measured mean power of a busy GPU of one type.
type GPUPower struct {
	GPUType string  `json:"gpu_type"` // lower case
	Watts   float64 `json:"watts"`
	Jobs    int     `json:"jobs"`
}

// speed returns the factor for (model, gpu type), if any.
func (c *Calibration) speed(model, gpuType string) (SpeedFactor, bool) {
	if c == nil || model == "" {
		return SpeedFactor{}, false
	}
	gpuType = strings.ToLower(gpuType)
	for _, f := range c.Speed {
		if f.Model == model && f.GPUType == gpuType && f.Factor > 0 {
			return f, true
		}
	}
	return SpeedFactor{}, false
}

// power returns the measured busy power of a GPU type, if any.
func (c *Calibration) power(gpuType string) (GPUPower, bool) {
	if c == nil {
		return GPUPower{}, false
	}
	gpuType = strings.ToLower(gpuType)
	for _, p := range c.Power {
		if p.GPUType == gpuType && p.Watts > 0 {
			return p, true
		}
	}
	return GPUPower{}, false
}

// calibrate applies the snapshot's calibration to a job's time model and
// records the explanation (jobInfo.calibNote) for its decision.
func (c *cycle) calibrate(ji *jobInfo, gpuType string) {
	cal := c.s.Calibration
	ji.gpuType = strings.ToLower(gpuType)
	var notes []string
	if f, ok := cal.speed(ji.hints.Model, gpuType); ok && ji.model.kind != kindOpaque {
		ji.model.calib = f.Factor
		notes = append(notes, fmt.Sprintf("modelled run time ×%.2f, measured on %d finished %s jobs on %s",
			f.Factor, f.Jobs, f.Model, f.GPUType))
	}
	if p, ok := cal.power(gpuType); ok && c.o.EnergyWeight > 0 {
		notes = append(notes, fmt.Sprintf("energy at %.0f W per GPU, measured on %d finished jobs on %s",
			p.Watts, p.Jobs, p.GPUType))
	}
	ji.calibNote = strings.Join(notes, "; ")
}

// gpuWatts is the busy power the energy term uses for the job's GPUs.
func (c *cycle) gpuWatts(ji *jobInfo) float64 {
	if p, ok := c.s.Calibration.power(ji.gpuType); ok {
		return p.Watts
	}
	return c.o.GPUWatts
}

// ModelFact is what the time model says about one decided job, for
// calibration: the GPU type it runs on and, for a job with a catalog model
// and a work amount, the hint's model and the uncalibrated modelled run
// time at the decided size ("" and 0 otherwise).
type ModelFact struct {
	Model   string
	GPUType string
	Run     time.Duration
}

// ModelFacts returns the facts of every decision of the plan whose job
// has GPUs in a known partition: its GPU type and, when the time model
// answers its run time itself, the uncalibrated modelled run time at the
// decision's Workers and PS. Pure; the daemon stores these with its
// decisions so that finished jobs can be compared with the model.
func ModelFacts(s *Snapshot, p Plan, o Options) (map[int64]ModelFact, error) {
	o = o.withDefaults()
	bare := *s
	bare.Calibration = nil
	c, err := newCycleMemo(context.Background(), &bare, &o, nil)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*jobInfo, len(c.jobs))
	for _, ji := range c.jobs {
		byID[ji.job.ID] = ji
	}
	out := map[int64]ModelFact{}
	for _, d := range p.Decisions {
		ji := byID[d.JobID]
		if ji == nil || ji.isl == nil || d.Workers < 1 {
			continue
		}
		f := ModelFact{GPUType: ji.gpuType}
		if ji.model.kind != kindOpaque && ji.hints.Model != "" {
			gpn := c.o.NodeGPUs
			if ji.isl.maxGPN > 0 {
				gpn = ji.isl.maxGPN
			}
			if sec, ok := ji.model.modelSeconds(d.Workers, d.PS, gpn, ji.kappa, c.o); ok {
				f.Model, f.Run = ji.hints.Model, seconds(sec)
			}
		}
		out[d.JobID] = f
	}
	return out, nil
}
