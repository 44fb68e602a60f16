package daemon

// Stage names a step of the daemon where an error is counted
// (strata_errors_total{stage}) and logged (key "stage").
type Stage string

// Stages of a cycle and of the loop around it.
const (
	StageConnect      Stage = "connect"       // connecting to slurmrestd
	StageSnapshot     Stage = "snapshot"      // reading the queue
	StageDatabase     Stage = "database"      // opening Postgres, reading history
	StageLock         Stage = "lock"          // the one-writer lock
	StagePlan         Stage = "plan"          // planning and guarding (decide.Decide)
	StageApply        Stage = "apply"         // writing to Slurm
	StageSave         Stage = "save"          // storing the audit record
	StageAuditDropped Stage = "audit_dropped" // audit records dropped from a full queue
	StagePrune        Stage = "prune"         // pruning the audit trail
	StageReload       Stage = "reload"        // SIGHUP reload
	StageHistory      Stage = "history"       // learning durations from finished jobs
	StageCycle        Stage = "cycle"         // a failure not tied to one step
)

// Stages lists every stage (metrics pre-registration).
func Stages() []Stage {
	return []Stage{StageConnect, StageSnapshot, StageDatabase, StageLock, StagePlan, StageApply, StageSave,
		StageAuditDropped, StagePrune, StageReload, StageHistory, StageCycle}
}

// Cycle results (strata_cycles_total{result}).
const (
	resultOK      = "ok"
	resultFailed  = "failed"
	resultStandby = "standby"
)
