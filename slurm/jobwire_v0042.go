package slurm

import (
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	api "github.com/SlinkyProject/slurm-client/api/v0042"
)

// The job list is the one large answer (about 10 KB of pretty-printed JSON
// per job; 10,000 jobs ≈ 95 MB). Decoding it into slurm-client's generated
// V0042JobInfo with encoding/json took 1.9 s and 3.5 M allocations for
// 10,000 jobs, so jobs are decoded into jobWireV0042 below: only the fields
// Strata reads, with the same JSON names as V0042JobInfo, by the
// go-json-experiment decoder, which skips the other members quickly.
// Requests and the small answers still use the generated types.

// noValV0042 is slurmrestd's {set, infinite, number} integer.
type noValV0042 struct {
	Set      bool  `json:"set"`
	Infinite bool  `json:"infinite"`
	Number   int64 `json:"number"`
}

func (n noValV0042) value() (int64, bool) {
	return n.Number, n.Set && !n.Infinite
}

// jobWireV0042 is the subset of api.V0042JobInfo that Strata reads.
type jobWireV0042 struct {
	JobID         int64      `json:"job_id"`
	Name          string     `json:"name"`
	UserName      string     `json:"user_name"`
	Account       string     `json:"account"`
	QOS           string     `json:"qos"`
	Partition     string     `json:"partition"`
	JobState      []string   `json:"job_state"`
	StateReason   string     `json:"state_reason"`
	SubmitTime    noValV0042 `json:"submit_time"`
	EligibleTime  noValV0042 `json:"eligible_time"`
	StartTime     noValV0042 `json:"start_time"`
	EndTime       noValV0042 `json:"end_time"`
	TimeLimit     noValV0042 `json:"time_limit"`
	Priority      noValV0042 `json:"priority"`
	Nice          int64      `json:"nice"`
	NodeCount     noValV0042 `json:"node_count"`
	Cpus          noValV0042 `json:"cpus"`
	MemoryPerNode noValV0042 `json:"memory_per_node"`
	MemoryPerCpu  noValV0042 `json:"memory_per_cpu"`
	TresPerNode   string     `json:"tres_per_node"`
	TresPerJob    string     `json:"tres_per_job"`
	TresPerTask   string     `json:"tres_per_task"`
	Tasks         noValV0042 `json:"tasks"`
	TasksPerNode  noValV0042 `json:"tasks_per_node"`
	CpusPerTask   noValV0042 `json:"cpus_per_task"`
	Requeue       bool       `json:"requeue"`
	RestartCnt    int        `json:"restart_cnt"`
	CpusPerTres   string     `json:"cpus_per_tres"`
	MemoryPerTres string     `json:"memory_per_tres"`
	ArrayJobID    noValV0042 `json:"array_job_id"`
	ArrayTasks    string     `json:"array_task_string"`
	HetJobID      noValV0042 `json:"het_job_id"`
	Comment       string     `json:"comment"`
	AdminComment  string     `json:"admin_comment"`
	BurstBuffer   string     `json:"burst_buffer"`
	BBState       string     `json:"burst_buffer_state"`
	Nodes         string     `json:"nodes"`
	GresDetail    []string   `json:"gres_detail"`
}

// jobsRespV0042 is the subset of api.V0042OpenapiJobInfoResp Strata reads.
type jobsRespV0042 struct {
	Jobs     []jobWireV0042            `json:"jobs"`
	Meta     *api.V0042OpenapiMeta     `json:"meta"`
	Errors   *api.V0042OpenapiErrors   `json:"errors"`
	Warnings *api.V0042OpenapiWarnings `json:"warnings"`
}

// decodeJSON decodes one JSON value from r into out, tolerating what
// slurmrestd may emit (invalid UTF-8 in user comments, duplicate names).
func decodeJSON(r io.Reader, out any) error {
	err := jsonv2.UnmarshalRead(r, out, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if err != nil {
		return fmt.Errorf("decode slurmrestd answer: %w", err)
	}
	return nil
}
