package slurm

import (
	"context"
	"strconv"
	"strings"
	"time"

	api "github.com/SlinkyProject/slurm-client/api/v0042"
)

// slurmdbJobWireV0042 is the subset of slurmdbd's api.V0042Job that the
// history reads (decoded like jobWireV0042: a long history is a large
// answer).
type slurmdbJobWireV0042 struct {
	JobID     int64  `json:"job_id"`
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Account   string `json:"account"`
	Name      string `json:"name"`
	Partition string `json:"partition"`
	QOS       string `json:"qos"`
	Comment   struct {
		Job string `json:"job"`
	} `json:"comment"`
	AllocationNodes int64 `json:"allocation_nodes"`
	State           struct {
		Current []string `json:"current"`
	} `json:"state"`
	Time struct {
		Submission int64      `json:"submission"`
		Start      int64      `json:"start"`
		End        int64      `json:"end"`
		Eligible   int64      `json:"eligible"`
		Limit      noValV0042 `json:"limit"` // minutes
	} `json:"time"`
	TRES struct {
		Allocated []tresWireV0042 `json:"allocated"`
	} `json:"tres"`
}

type tresWireV0042 struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

type slurmdbJobsRespV0042 struct {
	Jobs     []slurmdbJobWireV0042     `json:"jobs"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

func (v *v0042) finishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]FinishedJob, error) {
	start, end := strconv.FormatInt(since.Unix(), 10), strconv.FormatInt(until.Unix(), 10)
	skip := "true"
	p := &api.SlurmdbV0042GetJobsParams{StartTime: &start, EndTime: &end, SkipSteps: &skip}
	if cluster != "" {
		p.Cluster = &cluster
	}
	return readFinished(v.raw.SlurmdbV0042GetJobs(ctx, p))
}

func finishedFromV0042(w slurmdbJobWireV0042) FinishedJob {
	j := FinishedJob{ID: w.JobID, Cluster: w.Cluster, User: w.User, Account: w.Account, Name: w.Name,
		Partition: w.Partition, QOS: w.QOS, GPUs: gpusAllocated(w.TRES.Allocated),
		Submit: unixTime(w.Time.Submission), Start: unixTime(w.Time.Start), End: unixTime(w.Time.End),
		Eligible: unixTime(w.Time.Eligible), Nodes: int(w.AllocationNodes), Comment: w.Comment.Job}
	if len(w.State.Current) > 0 {
		j.State = w.State.Current[0]
	}
	if m, ok := w.Time.Limit.value(); ok {
		j.TimeLimit = time.Duration(m) * time.Minute
	}
	return j
}

// gpusAllocated counts gres/gpu in a TRES list: the untyped entry, or,
// when only typed ones were recorded (gres/gpu:a100), their sum.
func gpusAllocated(ts []tresWireV0042) int {
	var plain, typed int64
	for _, t := range ts {
		switch {
		case t.Type != "gres":
		case t.Name == "gpu":
			plain += t.Count
		case strings.HasPrefix(t.Name, "gpu:"):
			typed += t.Count
		}
	}
	if plain > 0 {
		return int(plain)
	}
	return int(typed)
}

func unixTime(s int64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
