package sim

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/calib"
)

// SpeedError is the what-if of a catalog that is wrong about some models
// (strata simulate --speed-error SPREAD --speed-noise SIGMA
// --speed-error-seed SEED; PerturbSpeeds).
type SpeedError struct {
	// Spread: every model of the trace gets a true speed factor
	// f = Spread^u, u uniform in [-1, 1] (≤ 1: none).
	Spread float64
	// Noise: every job's run time is also multiplied by exp(Noise·z), z
	// standard normal, independently per job (0: none).
	Noise float64
	Seed  uint64
}

// PerturbSpeeds multiplies the true run times (duration_s, and
// time_limit_s when given) of the trace's jobs by their model's factor
// and their own noise (SpeedError; draws from a PCG seeded with e.Seed,
// models in name order first, then jobs in trace order). The planner's
// time model does not know: its modelled run times are off until
// calibration learns the factors. Returns the factors by model (nil
// without a spread).
func PerturbSpeeds(tr *Trace, e SpeedError) map[string]float64 {
	if e.Spread <= 1 && e.Noise <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(e.Seed, 0x5eed_ca11b))
	var f map[string]float64
	if e.Spread > 1 {
		models := map[string]bool{}
		for _, j := range tr.Jobs {
			if j.Model != "" {
				models[j.Model] = true
			}
		}
		f = map[string]float64{}
		for _, m := range slices.Sorted(maps.Keys(models)) {
			f[m] = math.Pow(e.Spread, 2*rng.Float64()-1)
		}
	}
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		x, ok := f[j.Model]
		if !ok {
			x = 1
		}
		if e.Noise > 0 && j.Model != "" {
			x *= math.Exp(e.Noise * rng.NormFloat64())
		}
		j.Duration *= x
		j.TimeLimit *= x
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
	// Learned is, per model, how far the prediction in force at each run's
	// start was from the real run once the site had seen the model's first
	// LearnAfter runs (issue 32: a site teaches the model).
	Learned []ModelLearning `json:"learned_after_5,omitempty"`
}

// LearnAfter is the number of a model's ended runs after which
// CalibrationStats.Learned measures the prediction error.
const LearnAfter = 5

// ModelLearning is one model's prediction error after the site saw its
// first LearnAfter runs: the median of |real / predicted − 1| over the
// later runs, and how many there were.
type ModelLearning struct {
	Model     string  `json:"model"`
	Runs      int     `json:"runs"`
	MedianErr float64 `json:"median_rel_error"`
}

// calibState is a run's online calibration: the jobs finished so far as
// planner/calib sees them, and the fit the snapshots carry.
type calibState struct {
	opts    planner.Options // the policies' options, for the uncalibrated model
	gpuType string
	jobs    []calib.Job
	cal     *planner.Calibration
	dirty   bool
	// exclude are the users the calibration leaves out (decide.Records'
	// unreliable users), set when the records are refitted.
	exclude    map[string]bool
	errs, errc []float64
	// seen counts each model's completed runs; later the relative errors
	// of its runs after the first LearnAfter.
	seen  map[string]int
	later map[string][]float64
}

// current is the calibration of the jobs finished so far.
func (c *calibState) current() *planner.Calibration {
	if c.dirty {
		c.cal, c.dirty = decide.Calibrate(c.jobs, c.exclude), false
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

// ended learns from the first run of a job that ended at end, completed
// or stopped at its time limit (censored: its run is a lower bound), as
// the daemon learns from COMPLETED and TIMEOUT jobs: its run time against
// the uncalibrated time model at the size it ran (later runs of jobs that
// restarted or were killed, and jobs not modelled, teach nothing).
func (c *calibState) ended(j *job, end float64, censored bool) {
	if j.kills > 0 || j.restarts > 0 {
		return
	}
	d, r, err := planner.EstimateDuration(&j.pj, j.gpus, 0, c.opts)
	h, _, _ := planner.ParseHints(j.pj.Comment)
	if err != nil || r != planner.ReasonModelled || d <= 0 || h.Model == "" {
		return
	}
	real := end - j.firstStart
	c.jobs = append(c.jobs, calib.Job{End: simTime(end), Model: h.Model, GPUType: c.gpuType, User: j.pj.User,
		Modelled: d, Real: time.Duration(real * float64(time.Second)), Censored: censored})
	c.dirty = true
	if censored {
		return // the model's error is measured on completed runs
	}
	c.errs = append(c.errs, math.Abs(math.Log2(real/d.Seconds())))
	c.errc = append(c.errc, math.Abs(math.Log2(real/(d.Seconds()*j.calibAtStart))))
	if c.seen == nil {
		c.seen, c.later = map[string]int{}, map[string][]float64{}
	}
	if c.seen[h.Model] >= LearnAfter {
		c.later[h.Model] = append(c.later[h.Model], math.Abs(real/(d.Seconds()*j.calibAtStart)-1))
	}
	c.seen[h.Model]++
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
	st := &CalibrationStats{Jobs: len(c.errs), ErrBefore: med(c.errs), ErrAfter: med(c.errc), Factors: speeds(c.current())}
	for _, m := range slices.Sorted(maps.Keys(c.later)) {
		st.Learned = append(st.Learned, ModelLearning{Model: m, Runs: len(c.later[m]), MedianErr: med(c.later[m])})
	}
	return st
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
