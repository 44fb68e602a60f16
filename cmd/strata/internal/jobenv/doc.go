// Package jobenv is `strata env`: inside a job, it finds the decision
// Strata wrote to the job (the admin comment, read with scontrol or given
// by the caller, else the audit trail in Postgres) and prints it as shell
// exports for the training script (STRATA_WORKERS, STRATA_PS, ...). Without
// a decision the job's own GPU allocation is exported. Its flags live in
// cmd/strata.
package jobenv
