package daemon

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// record builds the audit record of a cycle: one row per decision that
// differs from the last one stored for the job, or that wrote (or tried to
// write) something. verdicts are aligned with p.Decisions.
func (d *Daemon) record(snap *planner.Snapshot, p planner.Plan, jobs map[int64]*planner.Job,
	verdicts []decide.Verdict, rep slurm.ApplyReport, id int64, start time.Time) *db.Cycle {
	rec := &db.Cycle{ID: id, Cluster: snap.Cluster, SnapshotID: snap.ID, Policy: p.Policy,
		Enforce: d.opts.Enforce, StartedAt: start.UTC(), Duration: d.deps.Now().Sub(start),
		Inputs: inputsOf(snap)}
	if len(d.opts.Settings) > 0 {
		rec.Inputs.Settings = d.opts.Settings
	}
	results := make(map[int64]slurm.ApplyResult, len(rep.Results))
	for _, r := range rep.Results {
		results[r.JobID] = r
	}
	rec.Decisions = make([]db.CycleDecision, 0, len(p.Decisions))
	seen := make(map[int64]bool, len(p.Decisions))
	for i, dc := range p.Decisions {
		v := verdicts[i]
		cd := db.CycleDecision{Decision: dc, Outcome: v.Outcome, Guard: v.Guard, OutcomeDetail: v.Guard.Describe(), Resized: v.Resizes()}
		if j := jobs[dc.JobID]; j != nil {
			cd.User, cd.Partition, cd.JobName, cd.State = j.User, j.Partition, j.Name, j.State
			cd.RequestedGPUs, cd.CurPriority = j.GPUs(), j.Priority
		}
		if v.Write {
			cd.Outcome, cd.OutcomeDetail = decide.NotSent, "the cycle ended before this job was written"
			if r, ok := results[dc.JobID]; ok {
				cd.Outcome, cd.Body, cd.OutcomeDetail = r.Outcome, r.Body, r.Detail
				if r.Guard != "" {
					cd.Guard = r.Guard
				}
			}
		}
		seen[dc.JobID] = true
		fp := fingerprint(cd)
		if fp == d.lastStored[dc.JobID] && !cd.Outcome.Wrote() {
			continue
		}
		d.lastStored[dc.JobID] = fp
		rec.Decisions = append(rec.Decisions, cd)
	}
	for id := range d.lastStored {
		if !seen[id] {
			delete(d.lastStored, id)
		}
	}
	d.addModelFacts(snap, rec)
	return rec
}

func inputsOf(s *planner.Snapshot) db.CycleInputs {
	in := db.CycleInputs{Nodes: len(s.Nodes)}
	for _, n := range s.Nodes {
		if n.Usable() {
			in.UsableNodes++
			in.FreeGPUs += n.FreeGPUs()
		}
		in.TotalGPUs += n.GPUs
	}
	for _, j := range s.Jobs {
		switch j.State {
		case planner.JobPending:
			in.PendingJobs++
		case planner.JobRunning:
			in.RunningJobs++
		}
	}
	return in
}

// account updates the metrics and logs the cycle's summary line.
func (d *Daemon) account(rec *db.Cycle, planned int) {
	outcomes := map[decide.Outcome]int{}
	for _, c := range rec.Decisions {
		if c.Guard != "" && c.Outcome == decide.Held {
			d.m.held.WithLabelValues(string(c.Guard)).Inc()
		}
	}
	d.m.pending.Set(float64(rec.Inputs.InScope))
	ev := d.log.Info().Int64("cycle_id", rec.ID).Str("snapshot_id", rec.SnapshotID).Str("policy", rec.Policy).
		Bool("enforce", rec.Enforce).Int("pending", rec.Inputs.PendingJobs).Int("in_scope", rec.Inputs.InScope).
		Int("decisions", planned).Int("stored", len(rec.Decisions))
	for _, c := range rec.Decisions {
		for _, r := range c.Reasons {
			d.m.decisions.WithLabelValues(string(r)).Inc()
		}
		if c.Body != "" || c.Outcome == decide.NotSent {
			outcomes[c.Outcome]++
			d.m.writes.WithLabelValues(string(c.Outcome)).Inc()
		}
		d.log.Debug().Int64("cycle_id", rec.ID).Int64("job_id", c.JobID).Str("action", string(c.Action)).
			Int("workers", c.Workers).Int("rank", c.Rank).Int64("priority", c.Priority).
			Str("outcome", string(c.Outcome)).Str("guard", string(c.Guard)).Msg("decision")
	}
	for o, n := range outcomes {
		ev = ev.Int(string(o), n)
	}
	ev.Dur("duration_ms", rec.Duration).Msg("cycle")
}

// addAlternatives runs the comparison policies on the same snapshot and
// attaches their decision to each stored decision.
func (d *Daemon) addAlternatives(ctx context.Context, s *planner.Snapshot, rec *db.Cycle) {
	if len(d.alts) == 0 || len(rec.Decisions) == 0 {
		return
	}
	idx := make(map[int64]int, len(rec.Decisions))
	for i, c := range rec.Decisions {
		idx[c.JobID] = i
	}
	for _, a := range d.alts {
		p, err := a.p.Plan(ctx, s)
		if err != nil {
			d.log.Warn().Err(err).Str("policy", a.name).Msg("comparison plan failed")
			continue
		}
		for _, x := range p.Decisions {
			if i, ok := idx[x.JobID]; ok {
				rec.Decisions[i].Alternatives = append(rec.Decisions[i].Alternatives, db.Alternative{
					Policy: a.name, Action: x.Action, Workers: x.Workers, PS: x.PS, Rank: x.Rank,
					PredictedStart: x.PredictedStart, PredictedEnd: x.PredictedEnd, Reasons: x.Reasons})
			}
		}
	}
}
