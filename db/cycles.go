package db

import (
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Cycle is one plan cycle of `strata run` (or `strata plan`) as kept in the
// audit trail: what the planner saw, what it decided for each job, and what
// was written to Slurm. Tables strata_cycles and strata_cycle_decisions.
type Cycle struct {
	// ID is assigned by ReserveCycleID (or by SaveCycle when zero). It is
	// the C of the admin comment "strata: ... cycle=C".
	ID         int64     `json:"id"`
	Cluster    string    `json:"cluster"`
	SnapshotID string    `json:"snapshot_id"`
	Policy     string    `json:"policy"`
	Enforce    bool      `json:"enforce"`
	StartedAt  time.Time `json:"started_at"`
	// Duration is the wall time from snapshot to the end of Apply.
	Duration time.Duration `json:"duration"`
	Inputs   CycleInputs   `json:"inputs"`
	// Decisions are the stored decisions of the cycle, by job ID. A daemon
	// may leave out decisions identical to the last stored one of the job.
	Decisions []CycleDecision `json:"decisions"`
}

// CycleInputs summarises the snapshot a cycle planned from.
type CycleInputs struct {
	PendingJobs int `json:"pending_jobs"`
	RunningJobs int `json:"running_jobs"`
	// InScope is the number of pending jobs the daemon was allowed to plan
	// (its partition/user/name filters).
	InScope     int `json:"in_scope"`
	Nodes       int `json:"nodes"`
	UsableNodes int `json:"usable_nodes"`
	TotalGPUs   int `json:"total_gpus"`
	FreeGPUs    int `json:"free_gpus"`
}

// Decision outcomes recorded besides slurm.Outcome values ("applied",
// "dry-run", "unchanged", "skipped-not-pending", "skipped-gone", "refused",
// "failed").
const (
	// OutcomeKept: the planner's action was keep; nothing to write.
	OutcomeKept = "kept"
	// OutcomeHeld: a daemon guard (limit, hysteresis, cap) held the write
	// back; Guard says which.
	OutcomeHeld = "held"
	// OutcomeNotSent: the cycle ended (shutdown, lost lock) before the
	// decision was applied.
	OutcomeNotSent = "not-sent"
)

// CycleDecision is the planner's decision for one job in one cycle, with
// what the daemon did with it.
type CycleDecision struct {
	planner.Decision
	// Job facts at snapshot time (for explain and reports).
	User          string           `json:"user"`
	Partition     string           `json:"partition"`
	JobName       string           `json:"job_name"`
	State         planner.JobState `json:"state"`
	RequestedGPUs int              `json:"requested_gpus"`
	CurPriority   int64            `json:"cur_priority"`
	// Outcome is a slurm.Outcome value or one of the Outcome* constants.
	Outcome string `json:"outcome"`
	// Guard names the daemon rule that held or trimmed the write:
	// cycle_limit, job_cap, hysteresis_priority, hysteresis_gpus,
	// rewrite_opt_out, not_pending ("" when none).
	Guard string `json:"guard,omitempty"`
	// Body is the JSON update sent to slurmrestd (or, in shadow mode, that
	// enforce mode would have sent).
	Body   string `json:"body,omitempty"`
	Detail string `json:"outcome_detail,omitempty"`
	// Alternatives are what other policies would have decided for the job
	// from the same snapshot.
	Alternatives []Alternative `json:"alternatives,omitempty"`
}

// Alternative is another policy's decision for the same job and snapshot.
type Alternative struct {
	Policy         string           `json:"policy"`
	Action         planner.Action   `json:"action"`
	Workers        int              `json:"workers"`
	PS             int              `json:"ps,omitempty"`
	Rank           int              `json:"rank"`
	PredictedStart time.Time        `json:"predicted_start,omitzero"`
	PredictedEnd   time.Time        `json:"predicted_end,omitzero"`
	Reasons        []planner.Reason `json:"reasons"`
}

// StoredDecision is a stored decision for one job with its cycle's context;
// DecisionsForJob returns them for `strata explain`.
type StoredDecision struct {
	CycleDecision
	CycleID    int64     `json:"cycle_id"`
	Cluster    string    `json:"cluster"`
	Policy     string    `json:"policy"`
	Enforce    bool      `json:"enforce"`
	SnapshotID string    `json:"snapshot_id"`
	DecidedAt  time.Time `json:"decided_at"`
}
