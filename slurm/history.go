package slurm

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// FinishedJob is one job as slurmdbd recorded it, for duration prediction
// from history.
type FinishedJob struct {
	ID                           int64
	Cluster, User, Account, Name string
	Partition, QOS, State        string
	// GPUs allocated to the whole job (tres.allocated gres/gpu).
	GPUs int
	// TimeLimit is the job's limit (0: none or unlimited).
	TimeLimit          time.Duration
	Submit, Start, End time.Time
	// Eligible is when the job could first start (its --begin; zero when
	// not recorded), Nodes the nodes it was allocated, Comment its
	// --comment (slurmdbd keeps it with AccountingStoreFlags=job_comment;
	// "" otherwise).
	Eligible time.Time
	Nodes    int
	Comment  string
}

// ServesAccounting says whether slurmrestd serves slurmdbd's /slurmdb
// endpoints (it runs with openapi/slurmdbd: the cluster has accounting),
// as found when the client was built.
func (c *Client) ServesAccounting() bool { return c.accounting }

// historyWindow is the span of one /slurmdb jobs request: a first read of
// 90 days is 13 requests, not one answer holding every job.
const historyWindow = 7 * 24 * time.Hour

// FinishedJobs lists the jobs of cluster ("" = any) that completed
// successfully (state COMPLETED: a cancelled or failed run's cut-short time
// would mislead a predictor) with an end time in (since, until], oldest
// first, read from slurmdbd through slurmrestd (/slurmdb/.../jobs) in
// windows of a week. Each job is listed once: by the window its end falls
// in. Without accounting it fails with ErrNotFound (slurmrestd serves no
// /slurmdb); while slurmdbd is down, with slurmrestd's error.
func (c *Client) FinishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]FinishedJob, error) {
	return c.jobsEnded(ctx, cluster, since, until, func(j FinishedJob) bool { return j.State == "COMPLETED" })
}

// jobsEnded lists the jobs of cluster that ran (a start, an end after it)
// with an end in (since, until] and that keep accepts, oldest end first,
// read in windows of historyWindow; each job once, by the window its end
// falls in.
func (c *Client) jobsEnded(ctx context.Context, cluster string, since, until time.Time, keep func(FinishedJob) bool) ([]FinishedJob, error) {
	var out []FinishedJob
	for from := since; from.Before(until); from = from.Add(historyWindow) {
		to := from.Add(historyWindow)
		if to.After(until) {
			to = until
		}
		js, err := c.api.finishedJobs(ctx, cluster, from, to)
		if err != nil {
			return nil, fmt.Errorf("job history from slurmdbd: %w", err)
		}
		for _, j := range js {
			if keep(j) && !j.Start.IsZero() && j.End.After(j.Start) && j.End.After(from) && !j.End.After(to) {
				out = append(out, j)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b FinishedJob) int { return a.End.Compare(b.End) })
	return out, nil
}
