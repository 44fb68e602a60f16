package sim

// Per-job outcomes and the job inputs a replay on a real cluster needs
// (scripts/evalslurm, `make evaluate-slurm`). Nothing here changes a run.

// JobOutcome is what became of one trace job in a run: when it was
// submitted, first started and ended (seconds from the trace start; -1 when
// it never started or never ended) and the GPUs it ran on (0 = never
// started).
type JobOutcome struct {
	ID     string
	Submit float64
	Start  float64
	End    float64
	GPUs   int
	// Killed: Slurm ended the job at its time limit at least once (its
	// user resubmitted it; End is the resubmission's).
	Killed bool
}

// outcomes lists every job that was not dropped, in trace order.
func (e *engine) outcomes() []JobOutcome {
	out := make([]JobOutcome, 0, len(e.jobs))
	for i := range e.jobs {
		j := &e.jobs[i]
		if j.phase == phaseDropped {
			continue
		}
		o := JobOutcome{ID: j.tj.ID, Submit: j.tj.Submit, Start: j.firstStart, End: -1, GPUs: j.gpus, Killed: j.kills > 0}
		if j.phase == phaseDone {
			o.End = j.end
		}
		out = append(out, o)
	}
	return out
}

// Comment is the --comment a simulated user writes on job j (see
// HintRange): what a replay submits so that Strata sees the jobs exactly
// as the simulator's policies do.
func (r HintRange) Comment(t Truth, j *TraceJob, clusterGPUs int) string {
	return r.comment(t, j, clusterGPUs)
}
