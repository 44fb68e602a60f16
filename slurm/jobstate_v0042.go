package slurm

import (
	"context"
	"fmt"
	"io"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/planner"
)

// jobStatesRespV0042 is GET /jobs/state: one entry per job, array tasks
// listed one by one ("123_4"), components of a heterogeneous job as
// "101+1" (the component's ID and its offset).
type jobStatesRespV0042 struct {
	Jobs []struct {
		JobID string   `json:"job_id"`
		State []string `json:"state"`
	} `json:"jobs"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

// clock reads slurmctld's clock (GET /diag's req_time).
func (v *v0042) clock(ctx context.Context) (time.Time, error) {
	return readDiagTime(v.raw.SlurmV0042GetDiag(ctx))
}

// jobStates lists every job's ID and state (slurmctld's light
// REQUEST_JOB_STATE: about 80 bytes a job against 8–10 KB in GET /jobs).
func (v *v0042) jobStates(ctx context.Context) (map[string]string, int64, error) {
	return readJobStates(v.raw.SlurmV0042GetJobsState(ctx, nil))
}

// jobRecords reads every record slurmctld keeps under job id: the job, or
// all tasks of array id, or all components of heterogeneous job id.
// ErrNotFound when slurmctld no longer knows it.
func (v *v0042) jobRecords(ctx context.Context, id int64) ([]planner.Job, int64, error) {
	resp, err := v.raw.SlurmV0042GetJob(ctx, jobIDString(id), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("read job %d: %w", id, err)
	}
	cr := &countingReader{r: resp.Body}
	resp.Body = readCloser{Reader: cr, Closer: resp.Body}
	var body jobsRespV0042
	err = decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	})
	if err == nil && len(body.Jobs) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return nil, cr.n, fmt.Errorf("read job %d: %w", id, err)
	}
	jobs, _ := jobsFromV0042(body.Jobs)
	return jobs, cr.n, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}
