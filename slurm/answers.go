package slurm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	api "github.com/SlinkyProject/slurm-client/api/v0042"

	"github.com/strata-hpc/strata/planner"
)

// Reading slurmrestd's answers, shared by the adapters. Every member Strata
// reads has the same JSON name and type in v0.0.42 and v0.0.44 (v0.0.44
// only adds members: TestV0044WireMatchesV0042 checks it against the
// generated types, TestV0044AnswersTranslateAsV0042 on answers recorded from
// one Slurm 26.05 in both versions), so the answers of both decode into the
// v0.0.42 wire types (jobWireV0042, api.V0042Node, ...) and translate with
// the same functions. Each reader takes what a generated client method
// returns and names the operation in its errors.

// answerProblems is the errors[] and warnings[] every answer carries.
type answerProblems struct {
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

func (p *answerProblems) get() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
	return p.Errors, p.Warnings
}

// readProblems reads the answer to a write (a job update, a signal, a node
// update), of which Strata needs only whether slurmrestd refused it. The
// caller names the operation.
func readProblems(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	var body answerProblems
	return decodeV0042(resp, &body, body.get)
}

// readJobList reads GET /jobs: every job and the cluster's name. It notes the
// answer's size for the snapshot's log line.
func (c *Client) readJobList(resp *http.Response, err error) ([]planner.Job, string, error) {
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	cr := &countingReader{r: resp.Body}
	resp.Body = readCloser{Reader: cr, Closer: resp.Body}
	var body jobsRespV0042
	err = decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	})
	c.jobsBytes.Store(cr.n)
	if err == nil {
		err = checkJobList(body.Jobs)
	}
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	jobs, bad := jobsFromV0042(body.Jobs)
	if bad > 0 {
		c.log.Warn().Int("jobs", bad).Msg("jobs with unreadable fields are left untouched (strata explain or plan --json shows why)")
	}
	return jobs, clusterV0042(body.Meta), nil
}

// ErrBadAnswer: slurmrestd's answer cannot be what Slurm holds (a job
// list that is null or missing, a job without an ID or a state, one job ID
// twice). Planning on it could write twice to one job, or take a broken
// answer for an empty queue, so the snapshot is refused for the cycle.
var ErrBadAnswer = errors.New("slurmrestd answer refused")

// checkJobList refuses a job list that cannot be Slurm's: nil (the answer
// was null, or had no "jobs" member; an empty queue is "jobs": []), a job
// without job_id or job_state (all its fields null), or a job ID listed
// twice.
func checkJobList(jobs []jobWireV0042) error {
	if jobs == nil {
		return fmt.Errorf("%w: no \"jobs\" list (an empty queue answers \"jobs\": [])", ErrBadAnswer)
	}
	seen := make(map[int64]bool, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.JobID <= 0:
			return fmt.Errorf("%w: job %d of %d has no job_id", ErrBadAnswer, i+1, len(jobs))
		case len(j.JobState) == 0:
			return fmt.Errorf("%w: job %d has no job_state", ErrBadAnswer, j.JobID)
		case seen[j.JobID]:
			return fmt.Errorf("%w: job %d is listed twice (its updates would conflict)", ErrBadAnswer, j.JobID)
		}
		seen[j.JobID] = true
	}
	return nil
}

// readJobRecords reads GET /job/{id}: every record under the id (one job,
// the tasks of an array, the components of a heterogeneous job) and the
// answer's size; ErrNotFound when there is none. The caller names the job.
func readJobRecords(resp *http.Response, err error) ([]planner.Job, int64, error) {
	if err != nil {
		return nil, 0, err
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
	if err == nil {
		err = checkJobList(body.Jobs)
	}
	if err != nil {
		return nil, cr.n, err
	}
	jobs, _ := jobsFromV0042(body.Jobs)
	return jobs, cr.n, nil
}

// recordOf is job id's own record among those GET /job/{id} answered.
func recordOf(id int64, jobs []planner.Job) (planner.Job, error) {
	for _, j := range jobs {
		if j.ID == id {
			return j, nil
		}
	}
	return planner.Job{}, fmt.Errorf("read job %d: %w", id, ErrNotFound)
}

// readJobStates reads GET /jobs/state: each job's key ("123", "123_4",
// "101+1") and state, and the answer's size.
func readJobStates(resp *http.Response, err error) (map[string]string, int64, error) {
	if err != nil {
		return nil, 0, fmt.Errorf("list job states: %w", err)
	}
	cr := &countingReader{r: resp.Body}
	resp.Body = readCloser{Reader: cr, Closer: resp.Body}
	var body jobStatesRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, cr.n, fmt.Errorf("list job states: %w", err)
	}
	out := make(map[string]string, len(body.Jobs))
	for _, j := range body.Jobs {
		out[j.JobID] = strings.Join(j.State, ",")
	}
	return out, cr.n, nil
}

// readNodes reads GET /nodes.
func readNodes(resp *http.Response, err error) ([]planner.Node, error) {
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	var body api.V0042OpenapiNodesResp
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	out := make([]planner.Node, 0, len(body.Nodes))
	for i := range body.Nodes {
		n, err := nodeFromV0042(&body.Nodes[i])
		if err != nil {
			return nil, fmt.Errorf("list nodes: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
}

// readPartitions reads GET /partitions; the answer slurmrestd gives while
// slurmdbd is down (HTTP 500 with the partitions) is taken with a warning.
func (c *Client) readPartitions(resp *http.Response, err error) ([]planner.Partition, error) {
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	var body api.V0042OpenapiPartitionResp
	err = decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	})
	if ae := (*APIError)(nil); errors.As(err, &ae) && len(body.Partitions) > 0 && onlyAccountingErrors(ae) {
		// slurmdbd is down: slurmrestd still lists the partitions but
		// fails the answer because it could not name their TRES.
		c.log.Warn().Str("slurmrestd", ae.Error()).Msg("slurmdbd unreachable: partitions read without accounting")
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	out := make([]planner.Partition, 0, len(body.Partitions))
	for i := range body.Partitions {
		p, err := partitionFromV0042(&body.Partitions[i])
		if err != nil {
			return nil, fmt.Errorf("list partitions: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// readFinished reads slurmdbd's GET /slurmdb/.../jobs.
func readFinished(resp *http.Response, err error) ([]FinishedJob, error) {
	if err != nil {
		return nil, fmt.Errorf("list slurmdbd jobs: %w", err)
	}
	var body slurmdbJobsRespV0042
	if err := decodeV0042(resp, &body, func() (*api.V0042OpenapiErrors, *api.V0042OpenapiWarnings) {
		return body.Errors, body.Warnings
	}); err != nil {
		return nil, fmt.Errorf("list slurmdbd jobs: %w", err)
	}
	out := make([]FinishedJob, len(body.Jobs))
	for i, w := range body.Jobs {
		out[i] = finishedFromV0042(w)
	}
	return out, nil
}
