package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0044"

	"github.com/strata-hpc/strata/planner"
)

// v0044 is the adapter for slurmrestd's OpenAPI v0.0.44 (Slurm 25.11 and
// 26.05), over slurm-client's generated api/v0044 package. It sends its
// requests with that client (the v0.0.44 paths and parameters); the
// answers and the job update body are the same as v0.0.42's for every
// member Strata reads or writes, so it shares the v0.0.42 adapter's wire
// types and translations (answers.go; TestV0044WireMatchesV0042 checks the
// members against the generated types).
type v0044 struct {
	c   *Client
	raw *api.Client
}

var _ restAPI = (*v0044)(nil)

func newV0044(c *Client) (restAPI, error) {
	raw, err := api.NewClient(c.cfg.URL, api.WithHTTPClient(c.http))
	if err != nil {
		return nil, err
	}
	return &v0044{c: c, raw: raw}, nil
}

func (v *v0044) jobs(ctx context.Context) ([]planner.Job, string, error) {
	return v.c.readJobList(v.raw.SlurmV0044GetJobs(ctx, nil))
}

func (v *v0044) jobStates(ctx context.Context) (map[string]string, int64, error) {
	return readJobStates(v.raw.SlurmV0044GetJobsState(ctx, nil))
}

func (v *v0044) jobRecords(ctx context.Context, id int64) ([]planner.Job, int64, error) {
	jobs, n, err := readJobRecords(v.raw.SlurmV0044GetJob(ctx, jobIDString(id), nil))
	if err != nil {
		return nil, n, fmt.Errorf("read job %d: %w", id, err)
	}
	return jobs, n, nil
}

func (v *v0044) job(ctx context.Context, id int64) (planner.Job, error) {
	jobs, _, err := v.jobRecords(ctx, id)
	if err != nil {
		return planner.Job{}, err
	}
	return recordOf(id, jobs)
}

func (v *v0044) clock(ctx context.Context) (time.Time, error) {
	return readDiagTime(v.raw.SlurmV0044GetDiag(ctx))
}

func (v *v0044) nodes(ctx context.Context) ([]planner.Node, error) {
	return readNodes(v.raw.SlurmV0044GetNodes(ctx, nil))
}

func (v *v0044) partitions(ctx context.Context) ([]planner.Partition, error) {
	return v.c.readPartitions(v.raw.SlurmV0044GetPartitions(ctx, nil))
}

// updateBody is v0.0.42's body: the job description members Strata sets
// are the same in v0.0.44.
func (v *v0044) updateBody(u JobUpdate) ([]byte, error) {
	b, err := json.Marshal(descV0042(u))
	if err != nil {
		return nil, fmt.Errorf("encode job update: %w", err)
	}
	return b, nil
}

func (v *v0044) updateJob(ctx context.Context, id int64, u JobUpdate) error {
	defer v.c.jobCache.markDirty(id) // written or not, the next snapshot reads it again
	b, err := v.updateBody(u)
	if err != nil {
		return fmt.Errorf("update job %d: %w", id, err)
	}
	if err := readProblems(v.raw.SlurmV0044PostJobWithBody(ctx, jobIDString(id), "application/json", bytes.NewReader(b))); err != nil {
		return fmt.Errorf("update job %d: %w", id, err)
	}
	return nil
}

func (v *v0044) signalJob(ctx context.Context, id int64, signal string) error {
	defer v.c.jobCache.markDirty(id)
	sig, flags := "SIG"+signal, api.SlurmV0044DeleteJobParamsFlags("BATCH_JOB")
	if err := readProblems(v.raw.SlurmV0044DeleteJob(ctx, jobIDString(id), &api.SlurmV0044DeleteJobParams{Signal: &sig, Flags: &flags})); err != nil {
		return fmt.Errorf("signal job %d: %w", id, err)
	}
	return nil
}

func (v *v0044) setNodeState(ctx context.Context, node, state string) error {
	st := []api.V0044UpdateNodeMsgState{api.V0044UpdateNodeMsgState(state)}
	if err := readProblems(v.raw.SlurmV0044PostNode(ctx, node, api.V0044UpdateNodeMsg{State: &st})); err != nil {
		return fmt.Errorf("update node %s: %w", node, err)
	}
	return nil
}

func (v *v0044) finishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]FinishedJob, error) {
	start, end := strconv.FormatInt(since.Unix(), 10), strconv.FormatInt(until.Unix(), 10)
	skip := "true"
	p := &api.SlurmdbV0044GetJobsParams{StartTime: &start, EndTime: &end, SkipSteps: &skip}
	if cluster != "" {
		p.Cluster = &cluster
	}
	return readFinished(v.raw.SlurmdbV0044GetJobs(ctx, p))
}

func (v *v0044) shares(ctx context.Context) (sharesRead, error) {
	return readShares(v.raw.SlurmV0044GetShares(ctx, nil))
}

func (v *v0044) qosPriorities(ctx context.Context) (map[string]int64, error) {
	return readQOS(v.raw.SlurmdbV0044GetQos(ctx, nil))
}
