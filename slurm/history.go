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
			if j.State == "COMPLETED" && !j.Start.IsZero() && j.End.After(j.Start) && j.End.After(from) && !j.End.After(to) {
				out = append(out, j)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b FinishedJob) int { return a.End.Compare(b.End) })
	return out, nil
}
