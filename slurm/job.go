package slurm

import (
	"context"

	"github.com/strata-hpc/strata/planner"
)

// Job reads one job as slurmctld holds it (pending, running, or ended
// within MinJobAge), one GET /job/{id}; an error wrapping ErrNotFound when
// slurmctld no longer knows it. `strata explain` reads a job's admin
// comment through it when no database is reachable.
func (c *Client) Job(ctx context.Context, id int64) (planner.Job, error) {
	return c.api.job(ctx, id)
}
