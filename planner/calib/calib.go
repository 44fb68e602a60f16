// Package calib fits the planner's calibration (planner.Calibration) from
// finished jobs: per (model, GPU type) the factor real run time / modelled
// run time, and per GPU type the mean power of its busy GPUs. The factor is
// shared by every user's jobs, so no one user may move it: each user has
// one vote (the median of their own jobs), and users whose own record
// shows unreliable claims (Config.Exclude) have none. Pure and
// deterministic: the daemon feeds it the collector's records, the
// simulator the jobs finished so far in a run.
package calib

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Job is one finished job's measurements.
type Job struct {
	// End orders the jobs: the most recent count.
	End time.Time
	// Model is the hint's catalog model; GPUType the GPU type it ran on.
	Model, GPUType string
	// User ran the job: a user's jobs are one vote in the speed factor
	// ("" is one user too: a source without users fits as before).
	User string
	// Modelled is the uncalibrated time model's run time at the size the
	// job ran at; Real its measured run time. A job without both gives no
	// speed factor.
	Modelled, Real time.Duration
	// Censored: the run was stopped (at its time limit) before it ended,
	// so Real is a lower bound of the run it needed. Such a run says the
	// model is at least Real/Modelled too fast: it votes only when that
	// is above 1 (a run stopped early says nothing of a model too slow),
	// and is never left out — a calibration that forgot the runs killed
	// at their limits would drift towards ever shorter predictions.
	Censored bool
	// BusyEnergyJ and BusyGPUSeconds are the energy and GPU time of its
	// GPUs' busy samples (utilization at or above the idle threshold).
	BusyEnergyJ, BusyGPUSeconds float64
}

// Config are the fit's settings; zero fields take the defaults.
type Config struct {
	// MinJobs is how many finished jobs a factor (or a power) needs before
	// it applies. Default 3.
	MinJobs int
	// Recent is how many of the most recent jobs of a (model, GPU type) the
	// factor is the median of. Default 20.
	Recent int
	// MinFactor and MaxFactor clip the factor. Defaults 0.25 and 4.
	MinFactor, MaxFactor float64
	// Exclude lists users whose jobs give no speed factor (their own
	// record is distrusted or corrected 2× or more: trust.Unreliable);
	// their jobs still measure GPU power.
	Exclude map[string]bool
}

// Defaults of Config.
const (
	DefaultMinJobs   = 3
	DefaultRecent    = 20
	DefaultMinFactor = 0.25
	DefaultMaxFactor = 4
)

func (c Config) withDefaults() Config {
	if c.MinJobs <= 0 {
		c.MinJobs = DefaultMinJobs
	}
	if c.Recent <= 0 {
		c.Recent = DefaultRecent
	}
	if c.MinFactor <= 0 {
		c.MinFactor = DefaultMinFactor
	}
	if c.MaxFactor <= 0 {
		c.MaxFactor = DefaultMaxFactor
	}
	return c
}

type key struct{ model, gpu string }

// Fit returns the calibration the jobs support: for each (model, GPU type)
// with at least MinJobs usable jobs, over its Recent most recent jobs the
// median across users of each user's median real / modelled (one vote per
// user; Exclude's users none), clipped to [MinFactor, MaxFactor]; for each
// GPU type with at least MinJobs jobs with busy samples, their busy energy
// over their busy GPU time. Lists are sorted by key; nil when nothing
// qualifies.
func Fit(jobs []Job, c Config) *planner.Calibration {
	c = c.withDefaults()
	js := slices.Clone(jobs)
	slices.SortStableFunc(js, func(a, b Job) int { return a.End.Compare(b.End) })
	ratios := map[key][]vote{}
	type power struct {
		energy, seconds float64
		jobs            int
	}
	powers := map[string]*power{}
	for _, j := range js {
		gt := strings.ToLower(j.GPUType)
		if j.Model != "" && j.Modelled > 0 && j.Real > 0 && !c.Exclude[j.User] && (!j.Censored || j.Real > j.Modelled) {
			k := key{j.Model, gt}
			ratios[k] = append(ratios[k], vote{j.User, j.Real.Seconds() / j.Modelled.Seconds()})
		}
		if j.BusyGPUSeconds > 0 && j.BusyEnergyJ >= 0 {
			p := powers[gt]
			if p == nil {
				p = &power{}
				powers[gt] = p
			}
			p.energy += j.BusyEnergyJ
			p.seconds += j.BusyGPUSeconds
			p.jobs++
		}
	}
	out := &planner.Calibration{}
	for k, rs := range ratios {
		if len(rs) < c.MinJobs {
			continue
		}
		rs = rs[max(0, len(rs)-c.Recent):]
		f := math.Min(c.MaxFactor, math.Max(c.MinFactor, perUser(rs)))
		out.Speed = append(out.Speed, planner.SpeedFactor{Model: k.model, GPUType: k.gpu, Factor: f, Jobs: len(rs)})
	}
	for gt, p := range powers {
		if p.jobs < c.MinJobs {
			continue
		}
		out.Power = append(out.Power, planner.GPUPower{GPUType: gt, Watts: p.energy / p.seconds, Jobs: p.jobs})
	}
	if len(out.Speed) == 0 && len(out.Power) == 0 {
		return nil
	}
	slices.SortFunc(out.Speed, func(a, b planner.SpeedFactor) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.GPUType, b.GPUType))
	})
	slices.SortFunc(out.Power, func(a, b planner.GPUPower) int { return cmp.Compare(a.GPUType, b.GPUType) })
	return out
}

// vote is one job's real / modelled ratio, and its user.
type vote struct {
	user  string
	ratio float64
}

// perUser is the median across users of each user's median ratio.
func perUser(vs []vote) float64 {
	by := map[string][]float64{}
	for _, v := range vs {
		by[v.user] = append(by[v.user], v.ratio)
	}
	meds := make([]float64, 0, len(by))
	for _, u := range slices.Sorted(maps.Keys(by)) {
		meds = append(meds, median(by[u]))
	}
	return median(meds)
}

// median of a non-empty list (the mean of the middle two for an even
// length).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
