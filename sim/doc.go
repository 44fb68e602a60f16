// Package sim is a discrete-event simulator that drives the production
// planner.Policy implementations against a simulated Slurm GPU cluster.
//
// A run replays a trace (CSV, see ReadTrace): jobs arrive at their submit
// time, policies are asked for a plan every scheduling interval (a "tick",
// at multiples of Config.Interval, as in the Pollux artifact's simulator),
// and the simulator applies the plan: it starts the admitted jobs on nodes
// (preferring the decision's Placement), and for policies that are allowed
// to (Tiresias, Optimus, *-elastic what-ifs) preempts or resizes running
// jobs with a restart penalty. Production-honest policies (smd, fifo, ...)
// may only shape pending jobs, and preempt jobs that opted in
// (Config.Preemptible; in Slurm mode through the daemon's guards: signal,
// checkpoint, requeue, restart, slurmpreempt.go); any other preempt or
// resize they return is ignored and counted as a violation.
//
// Job progress is the ground truth of Truth: the trace's fixed duration at
// the requested GPU count, or a measured scaling curve (ReadScaling) when
// one exists for the job's (model, batch). Completions are exact (not
// rounded to ticks); starts happen only at ticks. GPU energy comes from a
// per-GPU-type idle/busy power model (PowerModel).
//
// Users and accountability (users.go, knowledge.go, resubmit.go): jobs
// may be spread over users (AssignUsers), some of whom understate their
// work (MakeDishonest); realistic knowledge draws hint errors, jobs without
// hints and modal time limits (Knowledge). In Slurm mode a job killed at
// its time limit is resubmitted by its user (its JCT runs until its work
// is done), every run that ends feeds its user's record (planner/trust)
// into Strata's cycle (decide.History.Claims), and a time limit Strata
// lowers to bind a claim (Decision.TimeLimit) is the one Slurm kills by.
//
// Determinism: a run is a pure function of (trace, config, seed, policy);
// the same inputs give byte-identical JSON. The wall clock is read only to
// measure Result.PlanTime (not part of the JSON) and by the progress bar.
package sim
