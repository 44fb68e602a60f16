package planner

import (
	"strings"
	"time"
)

// DefaultSignal is the checkpoint signal of a preemptible job whose hint
// names none (signal=): SIGUSR1, as in the common site idiom
// `#SBATCH --requeue --signal=B:USR1@120`.
const DefaultSignal = "USR1"

// DefaultRestartCost is what one restart costs a preemptible job
// (checkpoint, requeue, start-up) when neither its hint (restart=), the
// per-model table (Options.RestartCosts) nor Options.RestartCost says.
const DefaultRestartCost = 2 * time.Minute

// Defaults of the preemption limits (Options.MinRunBeforePreempt,
// MaxPreemptPerDay, MaxDisturbedGPUHours); the writer's guards
// (slurm/decide.Defaults) use the same values.
const (
	DefaultMinRunBeforePreempt  = 10 * time.Minute
	DefaultMaxPreemptPerDay     = 2
	DefaultMaxDisturbedGPUHours = 64.0
)

// MaxRestartCost bounds restart= in hints.
const MaxRestartCost = 24 * time.Hour

// checkpointSignals are the signals a job may name in signal=: those a
// shell or a training script can trap (SIGKILL and SIGSTOP cannot be).
var checkpointSignals = map[string]bool{"USR1": true, "USR2": true, "TERM": true, "INT": true, "HUP": true}

// normalSignal turns "sigusr1", "USR1" or "SIGUSR1" into "USR1"; false
// for a signal a job cannot use to checkpoint.
func normalSignal(v string) (string, bool) {
	s := strings.ToUpper(v)
	s = strings.TrimPrefix(s, "SIG")
	return s, checkpointSignals[s]
}

// CheckpointSignal is the signal to send the job (the hint's signal=, else
// DefaultSignal), without the SIG prefix.
func (h Hints) CheckpointSignal() string {
	if h.Signal != "" {
		return h.Signal
	}
	return DefaultSignal
}

// Preemptible reports whether Strata may stop running job j so that it
// requeues itself and restarts later (possibly at another size within its
// gpus= range): its hint says preempt=yes, Slurm's record allows a requeue
// (Job.Requeue), the job is running, and Strata has not marked it
// non-cooperative (Job.NonCooperative: it once did not requeue after its
// signal). The hints are returned with Signal filled (CheckpointSignal),
// also when the job is not preemptible; they are zero when the comment
// has no valid hint. Nothing else is ever signalled.
func Preemptible(j *Job) (bool, Hints) {
	h, ok, err := ParseHints(j.Comment)
	if !ok || err != nil {
		return false, Hints{}
	}
	h.Signal = h.CheckpointSignal()
	return h.Preempt && j.Requeue && j.State == JobRunning && !j.NonCooperative, h
}

// JobRestartCost is what one restart costs a job with hints h: its
// restart=, else the per-model table (Options.RestartCosts, by model
// name), else Options.RestartCost, else DefaultRestartCost.
func JobRestartCost(h Hints, o Options) time.Duration {
	if h.RestartCost > 0 {
		return h.RestartCost
	}
	if d := o.RestartCosts[h.Model]; h.Model != "" && d > 0 {
		return d
	}
	if o.RestartCost > 0 {
		return o.RestartCost
	}
	return DefaultRestartCost
}
