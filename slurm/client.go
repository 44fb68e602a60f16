package slurm

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
)

// restAPI is what the rest of the package needs from one slurmrestd OpenAPI
// version. Each version implements it in its own files (*_v0042.go), using
// the generated types of slurm-client; no generated type crosses it.
type restAPI interface {
	// jobs lists every job slurmctld knows, and the cluster name.
	jobs(ctx context.Context) ([]planner.Job, string, error)
	// jobStates maps every job's GET /jobs/state key ("123", an array
	// task "123_4", a heterogeneous component "101+1") to its state, and
	// gives the answer's size.
	jobStates(ctx context.Context) (map[string]string, int64, error)
	// jobRecords reads every record under job id (all tasks of an array,
	// all components of a heterogeneous job) and the answer's size;
	// ErrNotFound when slurmctld no longer knows it.
	jobRecords(ctx context.Context, id int64) ([]planner.Job, int64, error)
	// job reads one job; ErrNotFound when slurmctld no longer knows it.
	job(ctx context.Context, id int64) (planner.Job, error)
	// nodes lists all nodes.
	nodes(ctx context.Context) ([]planner.Node, error)
	// partitions lists all partitions (TotalGPUs left 0).
	partitions(ctx context.Context) ([]planner.Partition, error)
	// updateBody is the exact JSON body updateJob would send.
	updateBody(u JobUpdate) ([]byte, error)
	// updateJob writes u to job id.
	updateJob(ctx context.Context, id int64, u JobUpdate) error
	// signalJob sends a signal ("USR1") to the job's batch shell.
	signalJob(ctx context.Context, id int64, signal string) error
	// setNodeState sets a node's state ("POWER_DOWN", "POWER_UP").
	setNodeState(ctx context.Context, node, state string) error
	// clock reads slurmctld's clock (GET /diag's req_time).
	clock(ctx context.Context) (time.Time, error)
	// shares reads GET /shares: each user association's fairshare factor
	// and the accounts (sitepolicy.go).
	shares(ctx context.Context) (sharesRead, error)
	// qosPriorities reads slurmdbd's GET /qos: each QOS's priority.
	qosPriorities(ctx context.Context) (map[string]int64, error)
	// finishedJobs lists slurmdbd's jobs of cluster ("" = any) that were
	// active in [since, until) (steps left out).
	finishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]FinishedJob, error)
}

// JobUpdate is a change to one pending job; nil/zero fields are left alone.
type JobUpdate struct {
	Priority     int64   `json:"priority,omitempty"`
	TresPerNode  *string `json:"tres_per_node,omitempty"`
	TresPerJob   *string `json:"tres_per_job,omitempty"`
	MinimumNodes int     `json:"minimum_nodes,omitempty"`
	MaximumNodes int     `json:"maximum_nodes,omitempty"`
	AdminComment *string `json:"admin_comment,omitempty"`
	// Partition, when set, is the job's new partition: one of the several
	// the user listed (Decision.Partition).
	Partition *string `json:"partition,omitempty"`
	// BeginTime, when set, is the job's new begin time (Unix seconds):
	// Slurm does not consider the job before it; now releases it.
	BeginTime int64 `json:"begin_time,omitempty"`
	// CPUsPerTask, MinimumCPUs, MinimumCPUsPerNode and MemoryPerNodeMB,
	// when set, scale a per-task CPU and per-node memory request with a
	// new GPU count (all three CPU fields: Slurm keeps the job's old CPU
	// count when only cpus_per_task changes).
	CPUsPerTask        int   `json:"cpus_per_task,omitempty"`
	MinimumCPUs        int   `json:"minimum_cpus,omitempty"`
	MinimumCPUsPerNode int   `json:"minimum_cpus_per_node,omitempty"`
	MemoryPerNodeMB    int64 `json:"memory_per_node,omitempty"`
	// Tasks and TasksPerNode, when set, are a PS job's new task count and
	// tasks per node: its workers and its servers (Decision.Tasks).
	Tasks        int `json:"tasks,omitempty"`
	TasksPerNode int `json:"tasks_per_node,omitempty"`
	// TimeLimitMinutes, when set, is the job's new (lower) time limit in
	// minutes: its claim binds it (Decision.TimeLimit).
	TimeLimitMinutes int `json:"time_limit,omitempty"`
	// ResetPriority hands the job's priority back to Slurm's priority
	// plugin: the update sends priority "infinite", which slurmctld takes
	// as "forget the directly set priority and compute it again" (never 0:
	// that holds the job). strata restore sends it, and so does the nice
	// priority mode once for a job Strata's absolute mode had fixed
	// (slurmctld ignores a nice on a job whose priority is fixed).
	ResetPriority bool `json:"reset_priority,omitempty"`
	// Nice, when set, is the job's new nice (the nice priority mode:
	// planner.Decision.Nice).
	Nice *int64 `json:"nice,omitempty"`
}

// adapters maps the OpenAPI versions Strata speaks to their adapters, in
// order of preference: the newest first, so that Strata uses the newest
// version both it and slurmrestd know (Slurm 24.11 serves v0.0.40–v0.0.42,
// 26.05 v0.0.42–v0.0.45). Adding a version is one file plus one entry here.
var adapters = []struct {
	version string
	build   func(c *Client) (restAPI, error)
}{
	{"v0.0.44", newV0044},
	{"v0.0.42", newV0042},
}

// Client talks to one slurmrestd. It is safe for concurrent use and meant to
// be reused across plan cycles. The token never appears in its logs or
// errors.
type Client struct {
	cfg     Config
	log     zerolog.Logger
	http    *http.Client
	api     restAPI
	version string
	// served is what slurmrestd offered (GET /openapi/v3), sorted.
	served []string
	pools  []planner.BurstBufferPool
	// scontrol reports the pools when none are declared ("" = none;
	// scontrol.go); poolCache keeps the last it reported.
	scontrol  string
	poolCache poolCache
	now       func() time.Time
	// accounting: slurmrestd serves slurmdbd's /slurmdb endpoints.
	accounting bool
	// noAdminComment: Slurm refused this user's admin comments (an
	// operator); updates are written without them (operator.go).
	noAdminComment atomic.Bool
	// jobCache keeps the last snapshot's jobs for incremental reads
	// (jobcache.go); jobsBytes is the size of the last GET /jobs answer.
	jobCache  jobCache
	jobsBytes atomic.Int64
}

// New validates cfg, asks slurmrestd which OpenAPI versions it serves and
// returns a client for the best one Strata speaks. It fails with
// ErrUnsupportedVersion, naming what was offered, when there is none.
func New(ctx context.Context, cfg Config, log zerolog.Logger) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("slurm config: %w", err)
	}
	cfg = cfg.withDefaults()
	var tokens TokenSource
	switch {
	case cfg.TokenFile != "":
		tokens = NewFileToken(cfg.TokenFile)
	case cfg.Token != "":
		tokens = StaticToken(cfg.Token)
	}
	log = log.With().Str("client", "slurmrestd").Logger()
	warnCleartext(cfg, log)
	hc, err := newHTTPClient(cfg, tokens, log)
	if err != nil {
		return nil, err
	}
	pools, _ := parsePools(cfg.BurstBufferPools) // checked by Validate
	c := &Client{cfg: cfg, log: log, http: hc, pools: pools, now: time.Now}
	if len(pools) == 0 {
		c.scontrol = scontrolPath(cfg.Scontrol, log)
	}
	served, err := c.servedVersions(ctx)
	if err != nil {
		return nil, err
	}
	c.served = served
	for _, a := range adapters {
		if contains(served, a.version) {
			if c.api, err = a.build(c); err != nil {
				return nil, fmt.Errorf("build slurmrestd %s client: %w", a.version, err)
			}
			c.version = a.version
			log.Info().Str("api_version", a.version).Strs("served", served).Strs("strata_speaks", supportedVersions()).
				Msg("slurmrestd api chosen: the newest version both sides know")
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w: slurmrestd at %s serves %v, strata needs %s",
		ErrUnsupportedVersion, cfg.URL, served, supportedVersions())
}

// APIVersion is the slurmrestd OpenAPI version in use, e.g. "v0.0.42".
func (c *Client) APIVersion() string { return c.version }

// ServedVersions is the slurmctld OpenAPI versions slurmrestd offered
// when the client connected, sorted ("v0.0.42", "v0.0.43", ...).
func (c *Client) ServedVersions() []string { return append([]string(nil), c.served...) }

// SupportedVersions is the slurmrestd OpenAPI versions Strata speaks, the
// one it prefers first.
func SupportedVersions() []string { return supportedVersions() }

// SetClock replaces the clock used for Snapshot.Now (tests and replays).
func (c *Client) SetClock(now func() time.Time) { c.now = now }

func supportedVersions() []string {
	vs := make([]string, len(adapters))
	for i, a := range adapters {
		vs[i] = a.version
	}
	return vs
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
