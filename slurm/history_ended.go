package slurm

import (
	"context"
	"time"
)

// EndedJobs lists the jobs of cluster ("" = any) that ran and ended in
// (since, until], whatever their end state (COMPLETED, FAILED, TIMEOUT,
// CANCELLED after a start, ...: each held its GPUs for its run), oldest
// end first, read from slurmdbd through slurmrestd like FinishedJobs. Jobs
// cancelled before they started are left out, and so are jobs still
// running, pending or suspended: slurmrestd gives a running job an end
// (the time of the answer) before slurmdbd has its real end, comment and
// state (seen on the accounting test bed). This is the workload a
// what-if replays (strata simulate --from-slurmdbd); the duration
// predictor reads FinishedJobs.
func (c *Client) EndedJobs(ctx context.Context, cluster string, since, until time.Time) ([]FinishedJob, error) {
	return c.jobsEnded(ctx, cluster, since, until, func(j FinishedJob) bool { return Ended(j.State) })
}

// Ended says whether a base job state is an end state (the job holds no
// node any more and will not run again under this record): COMPLETED,
// FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED,
// BOOT_FAIL, DEADLINE. Pending, running, suspended, completing (still
// releasing its nodes) and the other transitional states are not.
func Ended(state string) bool {
	switch state {
	case "", "RUNNING", "PENDING", "SUSPENDED", "COMPLETING", "CONFIGURING", "RESIZING", "STAGE_OUT", "SIGNALING",
		"REQUEUE_HOLD", "REQUEUED", "REQUEUE_FED", "SPECIAL_EXIT", "STOPPED", "RESV_DEL_HOLD", "REVOKED", "UPDATE_DB":
		return false
	}
	return true
}
