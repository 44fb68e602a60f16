package slurm

import (
	"context"
	"fmt"
	"net/http"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"
)

// Clock skew. Strata compares its own clock with Slurm's times (a begin
// time it sets, how long a job has run, a deferral still in effect), so a
// host whose clock is off from slurmctld's misplaces them all. slurmrestd
// sends no Date header; GET /diag's req_time is slurmctld's clock when it
// answered.

// diagRespV0042 is the part of GET /diag that holds slurmctld's clock
// (v0.0.42 and v0.0.44 alike).
type diagRespV0042 struct {
	Statistics struct {
		ReqTime struct {
			Number int64 `json:"number"`
		} `json:"req_time"`
	} `json:"statistics"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

// readDiagTime reads slurmctld's clock from a GET /diag answer.
func readDiagTime(resp *http.Response, err error) (time.Time, error) {
	if err != nil {
		return time.Time{}, fmt.Errorf("read slurmctld's clock: %w", err)
	}
	var body diagRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return time.Time{}, fmt.Errorf("read slurmctld's clock: %w", err)
	}
	if body.Statistics.ReqTime.Number <= 0 {
		return time.Time{}, fmt.Errorf("read slurmctld's clock: GET /diag has no req_time")
	}
	return time.Unix(body.Statistics.ReqTime.Number, 0).UTC(), nil
}

// ClockSkew is slurmctld's clock minus this host's (positive: slurmctld
// is ahead), measured against the middle of the request; its resolution
// is a second (req_time is whole seconds), so a skew under 2 s is noise.
func (c *Client) ClockSkew(ctx context.Context) (time.Duration, error) {
	t0 := c.now()
	ctld, err := c.api.clock(ctx)
	if err != nil {
		return 0, err
	}
	t1 := c.now()
	mid := t0.Add(t1.Sub(t0) / 2)
	return ctld.Sub(mid.Truncate(time.Second)), nil
}
