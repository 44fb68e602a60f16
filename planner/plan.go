package planner

import (
	"context"
	"time"
)

// Policy computes a plan from a snapshot. Implementations are pure: no I/O,
// no clock, no unseeded randomness; the same snapshot gives the same plan.
// A job that cannot be admitted is data (a Decision with a Reason), not an
// error; error is kept for "could not plan at all" (e.g. ctx cancelled).
type Policy interface {
	Plan(ctx context.Context, s *Snapshot) (Plan, error)
}

// Plan is a policy's answer for one snapshot.
type Plan struct {
	SnapshotID string `json:"snapshot_id"`
	Policy     string `json:"policy"`
	// Decisions holds one entry per job in the snapshot that the policy
	// considered (pending jobs, and running jobs for policies that may
	// preempt or resize in simulation), sorted by Rank then JobID.
	Decisions []Decision `json:"decisions"`
}

// Action says what a decision asks the actuator to do.
type Action string

const (
	// ActionKeep leaves the job as it is (the Reasons say why).
	ActionKeep Action = "keep"
	// ActionUpdate rewrites a pending job's priority and/or GPU request.
	ActionUpdate Action = "update"
	// ActionPreempt stops a running job so it can be restarted later
	// (simulation only; never sent to Slurm).
	ActionPreempt Action = "preempt"
	// ActionResize changes a running job's allocation (simulation only).
	ActionResize Action = "resize"
	// ActionMarkNonCooperative records on a running job that it ignored
	// its checkpoint signal, so that it is never signalled again (package
	// decide proposes it, not a policy).
	ActionMarkNonCooperative Action = "mark_noncooperative"
)

// Decision is the plan for one job.
type Decision struct {
	JobID  int64  `json:"job_id"`
	Action Action `json:"action"`
	// Start is true when the policy admits the job to start now with this
	// allocation (it fits the free capacity); false when it should wait.
	Start bool `json:"start"`
	// Workers is the number of GPUs (training workers) chosen; PS the
	// number of parameter servers (0 for all-reduce/single jobs).
	Workers int `json:"workers"`
	PS      int `json:"ps,omitempty"`
	// GPUsPerNode × NodeCount is the Slurm shape of the GPU request.
	GPUsPerNode int `json:"gpus_per_node"`
	NodeCount   int `json:"node_count"`
	// Tasks, TasksPerNode and CPUsPerTask, set on an update of a PS job
	// whose servers Slurm allocates (PS > 0), are what Strata writes as its
	// tasks: Workers + PS tasks, GPUsPerNode workers and PS/NodeCount
	// servers on each node, every task with CPUsPerTask CPUs; the
	// job's script gives each task its role (`strata env --multi-prog`).
	// MemoryPerNodeMB then holds the memory of a node's workers and
	// servers. 0 = the job's tasks stay (docs/planner.md, "Parameter
	// servers").
	Tasks        int `json:"tasks,omitempty"`
	TasksPerNode int `json:"tasks_per_node,omitempty"`
	CPUsPerTask  int `json:"cpus_per_task,omitempty"`
	// Placement names the nodes the plan expects the job to start on (a
	// feasibility witness; Slurm still places the job).
	Placement []string `json:"placement,omitempty"`
	// Rank is the start order (1 = first); Priority the Slurm priority that
	// realises it (0 = leave unchanged).
	Rank     int   `json:"rank"`
	Priority int64 `json:"priority,omitempty"`
	// Nice, in the nice priority mode (Options.PriorityMode), is the nice
	// that realises Rank: within ±Options.NiceBand, the best rank most
	// negative; nil = leave the job's nice alone (absolute mode, or an
	// unranked job).
	Nice *int64 `json:"nice,omitempty"`
	// Predicted start and completion (zero when unknown).
	PredictedStart time.Time `json:"predicted_start,omitzero"`
	PredictedEnd   time.Time `json:"predicted_end,omitzero"`
	// NotBefore, when set on a waiting update, is the earliest time the
	// plan lets the job start: it fits now at its planned size, but the plan
	// starts it later. Strata writes it as the job's begin time, which keeps
	// the job out of both of slurmctld's schedulers until then. Zero = the
	// job may start whenever Slurm finds room (docs/planner.md, "What
	// Strata writes, and what Slurm then does").
	NotBefore time.Time `json:"not_before,omitzero"`
	// MemoryPerNodeMB, when the job's hint says how much host memory a
	// worker needs (mem=), is the memory per node the plan reserved for its
	// shape: workers per node × that need. Strata writes it with a new GPU
	// shape when it is more than the job's own request scaled to the shape,
	// so that Slurm reserves what the plan counted. 0 = the job's request,
	// scaled.
	MemoryPerNodeMB int64 `json:"memory_per_node_mb,omitempty"`
	// Partition, for a job that lists several partitions (Job.Partitions)
	// and lets Strata rewrite it, is what Strata writes as its partition:
	// the one the plan starts it in (now, or at NotBefore), or the user's
	// whole list (comma-separated) to give a waiting job back every
	// partition after an earlier move. "" = the job's partition stays.
	Partition string `json:"partition,omitempty"`
	// Claimed, when the user's own record corrected the job's predicted
	// run time (Job.Claim), is the prediction before that correction (from
	// the hint, or from history) at the decided size: what the record
	// compares the job's real run time with, so that it never chases its
	// own correction. 0 = no correction (the prediction is PredictedEnd −
	// PredictedStart).
	Claimed time.Duration `json:"claimed,omitempty"`
	// TimeLimit, when set, is the lower time limit Strata writes for a
	// pending job whose claim moved it ahead: its hint-timed prediction is
	// far below the limit the user asked for, and the site binds claims
	// (Options.BindClaims): a margin over the prediction, never under the
	// floor and never above the job's own limit. 0 = the limit stays.
	TimeLimit time.Duration `json:"time_limit,omitempty"`
	// Reasons explain the decision (always at least one).
	Reasons []Reason `json:"reasons"`
	// Detail is a human sentence with the numbers behind the reasons.
	Detail string `json:"detail,omitempty"`
}

// Reason is a stable, machine-readable reason code.
type Reason string
