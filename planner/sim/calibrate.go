package sim

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/calib"
)

// PerturbSpeeds is the what-if of a catalog that is wrong about some
// models (strata simulate --speed-error SPREAD --speed-error-seed SEED):
// every model of the trace gets a true speed factor f = SPREAD^u, u drawn
// uniformly from [-1, 1] (models in name order, from a PCG seeded with
// seed), and its jobs' true run times (duration_s, and time_limit_s when
// given) are multiplied by f. The planner's time model does not know: its
// modelled run times are off by f until calibration learns it. Returns the
// factors by model; SPREAD ≤ 1 changes nothing.
func PerturbSpeeds(tr *Trace, spread float64, seed uint64) map[string]float64 {
	if spread <= 1 {
		return nil
	}
	models := map[string]bool{}
	for _, j := range tr.Jobs {
		if j.Model != "" {
			models[j.Model] = true
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed_ca11b))
	f := map[string]float64{}
	for _, m := range slices.Sorted(maps.Keys(models)) {
		f[m] = math.Pow(spread, 2*rng.Float64()-1)
	}
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		if x, ok := f[j.Model]; ok {
			j.Duration *= x
			j.TimeLimit *= x
		}
	}
	return f
}

// CalibrationStats is what online calibration did in a run
// (Config.Calibrate): the speed factors it ended with, and the time
// model's error on the finished jobs it timed (median |log2(real /
// modelled)|: 0 exact, 1 a factor of two) without calibration and with the
// factor in force when each job started.
type CalibrationStats struct {
	Jobs      int                   `json:"jobs"`
	ErrBefore float64               `json:"median_abs_log2_uncalibrated"`
	ErrAfter  float64               `json:"median_abs_log2_calibrated"`
	Factors   []planner.SpeedFactor `json:"factors,omitempty"`
}

// calibState is a run's online calibration: the jobs finished so far as
// planner/calib sees them, and the fit the snapshots carry.
type calibState struct {
	opts       planner.Options // the policies' options, for the uncalibrated model
	gpuType    string
	jobs       []calib.Job
	cal        *planner.Calibration
	dirty      bool
	errs, errc []float64
}

// current is the calibration of the jobs finished so far.
func (c *calibState) current() *planner.Calibration {
	if c.dirty {
		c.cal, c.dirty = calib.Fit(c.jobs, calib.Config{}), false
	}
	return c.cal
}

// factor is the speed factor in force for j now (1: none).
func (c *calibState) factor(j *job) float64 {
	h, ok, err := planner.ParseHints(j.pj.Comment)
	if !ok || err != nil {
		return 1
	}
	for _, f := range speeds(c.current()) {
		if f.Model == h.Model && f.GPUType == c.gpuType {
			return f.Factor
		}
	}
	return 1
}

// finished learns from a job that completed at end: its run time against
// the uncalibrated time model at the size it ran (jobs that restarted,
// were killed or are not modelled teach nothing).
func (c *calibState) finished(j *job, end float64) {
	if j.killed || j.restarts > 0 {
		return
	}
	d, r, err := planner.EstimateDuration(&j.pj, j.gpus, 0, c.opts)
	h, _, _ := planner.ParseHints(j.pj.Comment)
	if err != nil || r != planner.ReasonModelled || d <= 0 || h.Model == "" {
		return
	}
	real := end - j.firstStart
	c.jobs = append(c.jobs, calib.Job{End: simTime(end), Model: h.Model, GPUType: c.gpuType,
		Modelled: d, Real: time.Duration(real * float64(time.Second))})
	c.dirty = true
	c.errs = append(c.errs, math.Abs(math.Log2(real/d.Seconds())))
	c.errc = append(c.errc, math.Abs(math.Log2(real/(d.Seconds()*j.calibAtStart))))
}

// stats summarises the run's calibration.
func (c *calibState) stats() *CalibrationStats {
	med := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		s := slices.Sorted(slices.Values(xs))
		return math.Round(s[(len(s)-1)/2]*1000) / 1000
	}
	return &CalibrationStats{Jobs: len(c.errs), ErrBefore: med(c.errs), ErrAfter: med(c.errc), Factors: speeds(c.current())}
}

func newCalibState(o planner.Options, gpuType string) *calibState {
	return &calibState{opts: o, gpuType: strings.ToLower(gpuType)}
}

func speeds(c *planner.Calibration) []planner.SpeedFactor {
	if c == nil {
		return nil
	}
	return c.Speed
}
