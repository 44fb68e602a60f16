package slurm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func TestWithGPUCount(t *testing.T) {
	tests := []struct {
		raw, typ string
		n        int
		want     string
	}{
		{"", "", 2, "gres/gpu:2"},
		{"gres/gpu:4", "", 1, "gres/gpu:1"},
		{"gres/gpu:a100:4,gres/nvme:1", "a100", 8, "gres/gpu:a100:8,gres/nvme:1"},
		{"gres/nvme:1,gres/gpu=4", "", 2, "gres/nvme:1,gres/gpu:2"},
		{"gres/gpu:a100:2,gres/gpu:v100:2,license/matlab:1", "a100+v100", 3, "gres/gpu:3,license/matlab:1"},
		{"gres/nvme:1", "", 2, "gres/nvme:1,gres/gpu:2"},
	}
	for _, tt := range tests {
		if got := withGPUCount(tt.raw, tt.typ, tt.n); got != tt.want {
			t.Errorf("withGPUCount(%q, %q, %d) = %q, want %q", tt.raw, tt.typ, tt.n, got, tt.want)
		}
	}
}

// TestJobUpdateKeepsTheRestOfTheRequest: a rewrite of the GPU count keeps
// every other GRES and scales CPUs per task and memory per node with the
// GPUs (issue 13.5: gres/nvme was dropped and a 1-GPU job kept 32 CPUs).
func TestJobUpdateKeepsTheRestOfTheRequest(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	base := planner.Job{ID: 1, State: planner.JobPending, SubmitTime: now.Add(-time.Hour), Priority: 10,
		GPUType: "a100", GPUsPerNode: 4, Nodes: 1, TRESPerNode: "gres/gpu:a100:4,gres/nvme:1",
		CPUs: 32, CPUsPerTask: 32, Tasks: 1, MemoryMB: 128000, MemoryPerNodeMB: 128000}
	one := planner.Decision{JobID: 1, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Priority: 10}
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		job  func(j *planner.Job)
		d    planner.Decision
		want JobUpdate
	}{
		{"per node: scaled", nil, one, JobUpdate{TresPerNode: s("gres/gpu:a100:1,gres/nvme:1"),
			CPUsPerTask: 8, MinimumCPUs: 8, MinimumCPUsPerNode: 8, MemoryPerNodeMB: 32000}},
		{"per GPU: Slurm scales", func(j *planner.Job) { j.CPUsPerGPU, j.MemoryPerGPU = true, true }, one,
			JobUpdate{TresPerNode: s("gres/gpu:a100:1,gres/nvme:1")}},
		{"no -c: CPUs kept", func(j *planner.Job) { j.CPUsPerTask, j.MemoryPerNodeMB = 1, 0 }, one,
			JobUpdate{TresPerNode: s("gres/gpu:a100:1,gres/nvme:1")}},
		{"two nodes of 4 from one: memory per node stays", nil,
			planner.Decision{JobID: 1, Workers: 8, GPUsPerNode: 4, NodeCount: 2, Priority: 10},
			// only the node count changes: the TRES string is sent anyway (Slurm
			// recomputes per-GPU CPU and memory totals only then)
			JobUpdate{TresPerNode: s("gres/gpu:a100:4,gres/nvme:1"), MinimumNodes: 2, MaximumNodes: 2}},
		{"8 on two nodes to 2 on one", func(j *planner.Job) {
			j.Nodes, j.Tasks, j.CPUs, j.TRESPerNode, j.GPUType = 2, 2, 64, "gres/gpu:4", ""
		}, planner.Decision{JobID: 1, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Priority: 10},
			JobUpdate{TresPerNode: s("gres/gpu:2"), MinimumNodes: 1, MaximumNodes: 1,
				CPUsPerTask: 16, MinimumCPUs: 32, MinimumCPUsPerNode: 32, MemoryPerNodeMB: 64000}},
		{"hint memory per worker above the scaled request: the plan's", nil,
			planner.Decision{JobID: 1, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Priority: 10, MemoryPerNodeMB: 40960},
			JobUpdate{TresPerNode: s("gres/gpu:a100:1,gres/nvme:1"), CPUsPerTask: 8, MinimumCPUs: 8, MinimumCPUsPerNode: 8, MemoryPerNodeMB: 40960}},
		{"hint memory below the scaled request: the request's", nil,
			planner.Decision{JobID: 1, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Priority: 10, MemoryPerNodeMB: 20000},
			JobUpdate{TresPerNode: s("gres/gpu:a100:1,gres/nvme:1"), CPUsPerTask: 8, MinimumCPUs: 8, MinimumCPUsPerNode: 8, MemoryPerNodeMB: 32000}},
		{"same size: nothing", nil, planner.Decision{JobID: 1, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Priority: 10}, JobUpdate{}},
		{"moved to another listed partition", func(j *planner.Job) { j.Partition, j.Partitions = "gpua,gpub", []string{"gpua", "gpub"} },
			planner.Decision{JobID: 1, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Priority: 10, Partition: "gpub"},
			JobUpdate{Partition: s("gpub")}},
		{"already in the chosen partition", func(j *planner.Job) { j.Partition, j.Partitions = "gpub", []string{"gpua", "gpub"} },
			planner.Decision{JobID: 1, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Priority: 10, Partition: "gpub"}, JobUpdate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := base
			if tt.job != nil {
				tt.job(&j)
			}
			u, _ := jobUpdateFor(j, tt.d, 0, now)
			u.AdminComment = nil // covered by the guard's codec tests
			if diff := cmp.Diff(tt.want, u); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMovedJobKeepsTheUserList: the admin comment records the partitions
// the user listed when Strata writes one of them, and the adapter reads
// the list back while the job stays in one of them.
func TestMovedJobKeepsTheUserList(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	j := planner.Job{ID: 1, State: planner.JobPending, Partition: "gpua,gpub", Partitions: []string{"gpua", "gpub"},
		GPUsPerJob: 4, Nodes: 1, TRESPerJob: "gres/gpu:4"}
	u, changed := jobUpdateFor(j, planner.Decision{JobID: 1, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Partition: "gpub"}, 7, now)
	if !changed || u.Partition == nil || u.AdminComment == nil {
		t.Fatalf("update %+v: want the partition and the admin comment", u)
	}
	tests := []struct {
		cur  string
		want []string
	}{
		{"gpub", []string{"gpua", "gpub"}}, // as Strata wrote it
		{"gpua", []string{"gpua", "gpub"}}, // moved back
		{"other", nil},                     // the user moved it: the record no longer holds
		{"gpua,gpuc", []string{"gpua", "gpuc"}},
	}
	for _, tt := range tests {
		w, _ := decide.ParseAdminComment(*u.AdminComment)
		if got := allowedPartitions(tt.cur, w.Parts); !cmp.Equal(got, tt.want) {
			t.Errorf("partition %s with %q: allowed %v, want %v", tt.cur, *u.AdminComment, got, tt.want)
		}
	}
}

// TestJobUpdateTellsTheOwnerWhyAndWhen: the admin comment Strata writes
// (which `scontrol show job` shows the job's owner) says why in reason
// codes and when the plan starts the job (issue 26.2).
func TestJobUpdateTellsTheOwnerWhyAndWhen(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	j := planner.Job{ID: 5, State: planner.JobPending, SubmitTime: now.Add(-time.Hour), Priority: 10,
		GPUsPerNode: 4, Nodes: 1, TRESPerNode: "gres/gpu:4", AdminComment: "jobstats=1"}
	tests := []struct {
		name string
		d    planner.Decision
		want string
	}{
		{"deferred and resized: its begin time", planner.Decision{JobID: 5, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 3, Priority: 10,
			PredictedStart: now.Add(20 * time.Minute), NotBefore: now.Add(20 * time.Minute),
			Reasons: []planner.Reason{planner.ReasonAllocationChanged, planner.ReasonWaitOrder, planner.ReasonDeferred, planner.ReasonModelled}},
			"jobstats=1; strata: workers=2 ps=0 rank=3 cycle=4 defer=1795522800 why=deferred,allocation_changed start=2026-11-24T12:20:00Z n=1"},
		{"waits for GPUs: the predicted start", planner.Decision{JobID: 5, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Rank: 1, Priority: 10,
			PredictedStart: now.Add(90 * time.Minute), Reasons: []planner.Reason{planner.ReasonFixedGPUs, planner.ReasonWaitResources}},
			"jobstats=1; strata: workers=4 ps=0 rank=1 cycle=4 why=wait_resources start=2026-11-24T13:30:00Z n=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, changed := jobUpdateFor(j, tt.d, 4, now)
			if !changed || u.AdminComment == nil {
				t.Fatalf("no admin comment written: %+v", u)
			}
			if *u.AdminComment != tt.want {
				t.Errorf("admin comment\n got %q\nwant %q", *u.AdminComment, tt.want)
			}
		})
	}
	// Every write counts itself in Slurm's own record (issue 23.8): the
	// next write to the same job says n=2.
	u, _ := jobUpdateFor(j, tests[0].d, 4, now)
	j2 := j
	j2.AdminComment, j2.Priority = *u.AdminComment, 99
	u2, changed := jobUpdateFor(j2, tests[1].d, 5, now)
	if w, ok := decide.ParseAdminComment(*u2.AdminComment); !changed || !ok || w.Writes != 2 {
		t.Errorf("second write's admin comment %q: want n=2", *u2.AdminComment)
	}
}
