package sim

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Truth is the ground-truth job time model of a run.
//
//   - A job whose (model, batch_size) has a scaling curve runs, on w GPUs,
//     for duration_s × curve(w) / curve(requested): the trace's own value
//     at the requested count, and the measured speed-up elsewhere (linear
//     interpolation between measured counts; no speed-up beyond the
//     largest measured count). Placement (how many nodes a job spans) does
//     not change the speed: the curves are for packed allocations.
//   - Any other job runs for duration_s on its requested count. Such a job
//     is offered to policies as fixed-size (its hint has no gpus= range);
//     should a policy still run it on another count, the simulator scales
//     the duration linearly (duration_s × requested / w) and counts the
//     start in Result.LinearScaled, so the assumption is never silent.
//   - With ModelTruth, a job without a curve whose model, batch size and
//     iterations the planner's catalog knows scales the same way by the
//     planner's own time model (planner.EstimateDuration): duration_s ×
//     T(w) / T(requested). A what-if: policies then predict the truth
//     exactly up to the trace's own scale.
type Truth struct {
	Scaling *Scaling
	// Model enables ModelTruth with these planner options (catalog, node
	// size, bandwidths); nil = off. Set it with NewModelTruth.
	Model *planner.Options
	memo  *sync.Map // modelKey → float64 seconds (< 0: no estimate)
}

type modelKey struct {
	model        string
	batch        int
	iters        int64
	gpus         int
	requestedGPU int
}

// NewModelTruth returns a truth with ModelTruth on for nodes of nodeGPUs
// GPUs, keeping the scaling curves.
func NewModelTruth(s *Scaling, nodeGPUs int) Truth {
	return Truth{Scaling: s, Model: &planner.Options{NodeGPUs: nodeGPUs}, memo: &sync.Map{}}
}

// samplesHint describes a job's work for the catalog time model, whose
// batch= is per worker: the trace's iterations at its batch size on its
// requested GPUs are a fixed number of samples (one "epoch"), so that more
// workers need fewer steps.
func samplesHint(j *TraceJob) string {
	return fmt.Sprintf("model=%s batch=%d epochs=1 samples=%d", j.Model, j.BatchSize,
		j.Iterations*int64(j.BatchSize)*int64(j.GPUs))
}

// modelSeconds is the catalog time model's run time of j on w GPUs.
func (t Truth) modelSeconds(j *TraceJob, w int) (float64, bool) {
	if t.Model == nil || t.memo == nil || j.Model == "" || j.BatchSize <= 0 || j.Iterations <= 0 || w < 1 {
		return 0, false
	}
	k := modelKey{j.Model, j.BatchSize, j.Iterations, w, j.GPUs}
	if v, ok := t.memo.Load(k); ok {
		return v.(float64), v.(float64) >= 0
	}
	pj := planner.Job{ID: 1, GPUsPerJob: j.GPUs, Nodes: 1, Comment: "strata: " + samplesHint(j)}
	d, r, err := planner.EstimateDuration(&pj, w, 0, *t.Model)
	sec := d.Seconds()
	if err != nil || r != planner.ReasonModelled || sec <= 0 {
		sec = -1
	}
	t.memo.Store(k, sec)
	return sec, sec >= 0
}

// Duration returns the run time in seconds of j on w GPUs, and whether it
// had to assume linear scaling.
func (t Truth) Duration(j *TraceJob, w int) (float64, bool) {
	if w == j.GPUs {
		return j.Duration, false
	}
	if c, ok := t.curveRatio(j); ok {
		if d, ok := t.Scaling.Duration(j.Model, j.BatchSize, w); ok {
			return d * c, false
		}
	}
	if req, ok := t.modelSeconds(j, j.GPUs); ok {
		if d, ok := t.modelSeconds(j, w); ok {
			return j.Duration * d / req, false
		}
	}
	return j.Duration * float64(j.GPUs) / float64(max(1, w)), true
}

// curveRatio is duration_s / curve(requested), or false without a curve.
func (t Truth) curveRatio(j *TraceJob) (float64, bool) {
	if !t.Scaling.Has(j.Model, j.BatchSize) {
		return 0, false
	}
	d, ok := t.Scaling.Duration(j.Model, j.BatchSize, j.GPUs)
	if !ok || d <= 0 {
		return 0, false
	}
	return j.Duration / d, true
}

// Elastic reports whether policies may choose j's GPU count: only when the
// truth has a scaling curve (or, with ModelTruth, a model estimate) for it.
func (t Truth) Elastic(j *TraceJob) bool {
	if _, ok := t.curveRatio(j); ok {
		return true
	}
	_, ok := t.modelSeconds(j, j.GPUs)
	return ok
}

// HintRange says which GPU range a simulated user writes in the hint of a
// job with a scaling curve: gpus=1-MAX with MAX = ceil(requested ×
// MaxFactor), capped by the curve's largest measured count and the cluster.
// MaxFactor 1 (the default) is "up to what I asked for": a user who runs a
// job on N GPUs accepts fewer when that makes it start sooner, which is
// what Slurm's own --nodes=MIN-MAX expresses; 2 is a what-if for users who
// also accept up to twice their request.
type HintRange struct {
	MaxFactor float64
}

func (r HintRange) max(t Truth, j *TraceJob, clusterGPUs int) int {
	f := r.MaxFactor
	if f <= 0 {
		f = 1
	}
	m := int(math.Ceil(float64(j.GPUs) * f))
	if cm := t.Scaling.MaxGPUs(j.Model, j.BatchSize); cm > 0 {
		m = min(m, max(cm, j.GPUs))
	}
	return max(1, min(m, clusterGPUs))
}

// comment builds the job's --comment as a user would write it. Jobs with a
// scaling curve and a known amount of work get a full training hint with a
// GPU range; every other job gets no hint (fixed GPU count; its duration
// comes from the Predictor).
//
// The work written is what the user claims: the true work times
// TraceJob.ClaimScale (a lie or a realistic error), at least one step; a
// job marked NoHint gets none.
func (r HintRange) comment(t Truth, j *TraceJob, clusterGPUs int) string {
	if j.PS {
		return r.psComment(t, j, clusterGPUs)
	}
	if !t.Elastic(j) || j.Iterations <= 0 || j.NoHint {
		return ""
	}
	claimed := *j
	if s := j.ClaimScale; s > 0 && s != 1 {
		claimed.Iterations = max(1, int64(math.Round(float64(j.Iterations)*s)))
	}
	if _, curve := t.curveRatio(j); !curve {
		return fmt.Sprintf("strata: %s gpus=1-%d", samplesHint(&claimed), r.max(t, j, clusterGPUs))
	}
	return fmt.Sprintf("strata: model=%s batch=%d iters=%d gpus=1-%d",
		j.Model, j.BatchSize, claimed.Iterations, r.max(t, j, clusterGPUs))
}

// oracle is the Predictor every policy of a run gets: the true duration
// (labelled "oracle" in results). Jobs are looked up by simulator ID.
func oracle(t Truth, jobs []TraceJob) planner.Predictor {
	return oracleFunc(func(j *planner.Job, gpus int) (time.Duration, bool) {
		i := int(j.ID) - 1
		if i < 0 || i >= len(jobs) {
			return 0, false
		}
		if gpus <= 0 {
			gpus = jobs[i].GPUs
		}
		d, _ := t.Duration(&jobs[i], gpus)
		return time.Duration(d * float64(time.Second)), true
	})
}

// oracleFunc is the oracle: a planner.StablePredictor, its answer a
// function of the job's ID (its trace job, the whole work even after a
// resubmission) and the GPUs asked only.
type oracleFunc func(j *planner.Job, gpus int) (time.Duration, bool)

// Predict implements planner.Predictor.
func (f oracleFunc) Predict(j *planner.Job, gpus int) (time.Duration, bool) { return f(j, gpus) }

// Stable implements planner.StablePredictor.
func (oracleFunc) Stable() bool { return true }
