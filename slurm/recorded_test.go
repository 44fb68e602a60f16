package slurm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// recorded starts the recorded-JSON stand-in and a client for it.
func recorded(t *testing.T) (*slurmtest.Server, *slurm.Client) {
	t.Helper()
	srv := slurmtest.NewServer(t, "testdata")
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "root", Token: "t",
		Retries: 2, RetryBackoff: time.Millisecond, Timeout: 5 * time.Second,
		BurstBufferPools: []string{"nvme=1T"}}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.SetClock(func() time.Time { return time.Unix(1795313270, 0) })
	return srv, c
}

func TestSnapshotFromRecordedJSON(t *testing.T) {
	_, c := recorded(t)
	s, err := c.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	sub := func(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
	want := &planner.Snapshot{
		ID: "testcluster-20261122T020750.000Z", Now: sub(1795313270), Cluster: "testcluster",
		Nodes: []planner.Node{
			{Name: "node1", State: []string{"MIXED"}, Partitions: []string{"gpu"}, CPUs: 16, AllocCPUs: 1,
				MemoryMB: 64000, AllocMemMB: 1000, GPUs: 4, AllocGPUs: 2},
			{Name: "node2", State: []string{"IDLE"}, Partitions: []string{"gpu"}, CPUs: 16,
				MemoryMB: 64000, GPUs: 4},
		},
		Partitions: []planner.Partition{{Name: "gpu", Nodes: []string{"node1", "node2"}, TotalCPUs: 32, TotalGPUs: 8, PriorityJobFactor: 1}},
		// Job 3's 600G is still "pending": nothing held yet.
		BurstBufferPools: []planner.BurstBufferPool{{Name: "nvme", CapacityBytes: 1 << 40}},
		Jobs: []planner.Job{
			{ID: 1, Name: "cap-run2", User: "root", Partition: "gpu", State: planner.JobRunning, Reason: "None",
				SubmitTime: sub(1795313210), StartTime: sub(1795313210), Priority: 26, GPUsPerNode: 2,
				TRESPerNode: "gres/gpu:2", CPUsPerTask: 1, Requeue: true, Nodes: 1, CPUs: 1, MemoryMB: 1000, Comment: "strata: model=resnet50 batch=256 workers=1-4",
				NodeList: []string{"node1"}, GPUAlloc: []planner.GPUAllocation{{Node: "node1", Indices: []int{0, 1}}},
				AttainedGPUSeconds: 120},
			{ID: 3, Name: "cap-bb2", User: "alice", Partition: "gpu", State: planner.JobPending,
				Reason: "BurstBufferResources", SubmitTime: sub(1795313213), Priority: 26, GPUsPerNode: 1,
				TRESPerNode: "gres/gpu:1", CPUsPerTask: 1, Requeue: true, Nodes: 1, CPUs: 1, MemoryMB: 1000, Comment: "strata: model=gpt2 gpus=1-2",
				BurstBuffer: "#BB_LUA pool=nvme capacity=600G", BurstBufferPool: "nvme", BurstBufferBytes: 600 << 30,
				BurstBufferState: "pending"},
			{ID: 4, Name: "cap-pend", User: "root", Partition: "gpu", State: planner.JobPending, Reason: "Resources",
				SubmitTime: sub(1795313213), TimeLimit: 30 * time.Minute, Priority: 53, GPUsPerNode: 4, Nodes: 2,
				TRESPerNode: "gres/gpu:4", CPUsPerTask: 1, Requeue: true, Tasks: 2,
				CPUs: 2, MemoryMB: 2000, Comment: "strata: model=vgg16 workers=8 bad="},
			{ID: 5, Name: "cap-perjob", User: "root", Partition: "gpu", State: planner.JobPending, Reason: "Priority",
				SubmitTime: sub(1795313213), Priority: 26, GPUsPerJob: 3, TRESPerJob: "gres/gpu:3", CPUsPerTask: 1, Requeue: true,
				Nodes: 1, CPUs: 1, MemoryMB: 1000,
				Comment: "no hints"},
		},
	}
	for i := range want.Jobs { // no nice: a pending job's site priority is its priority (issue 31)
		if want.Jobs[i].State == planner.JobPending {
			want.Jobs[i].SitePriority = want.Jobs[i].Priority
		}
	}
	if diff := cmp.Diff(want, s, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Snapshot mismatch (-want +got):\n%s", diff)
	}
}

func TestRetriesTransient503(t *testing.T) {
	srv, c := recorded(t)
	srv.FailNext(2) // Retries: 2 -> the third attempt succeeds
	if _, err := c.Snapshot(context.Background()); err != nil {
		t.Fatalf("Snapshot after two 503s: %v", err)
	}
	srv.FailNext(100)
	_, err := c.Snapshot(context.Background())
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Snapshot with slurmrestd failing: err = %v, want the 503", err)
	}
}

func decisions() []planner.Decision {
	return []planner.Decision{
		{JobID: 4, Action: planner.ActionUpdate, Workers: 4, GPUsPerNode: 2, NodeCount: 2, Rank: 1, Priority: 100020},
		{JobID: 5, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 2, Priority: 100010},
		{JobID: 1, Action: planner.ActionUpdate, Workers: 4, GPUsPerNode: 4, NodeCount: 1, Rank: 3},  // running
		{JobID: 99, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 4}, // gone
		{JobID: 3, Action: planner.ActionUpdate, Workers: 8, GPUsPerNode: 8, NodeCount: 1, Rank: 5},  // too big
		{JobID: 3, Action: planner.ActionKeep, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 6},    // ignored
	}
}

func TestApplyDryRunSendsNothing(t *testing.T) {
	srv, c := recorded(t)
	rep, err := c.Apply(context.Background(), decisions(), slurm.ApplyOptions{DryRun: true, Cycle: 7})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := []slurm.ApplyResult{
		// Job 4's hint does not parse: left untouched, as the planner does.
		{JobID: 4, Outcome: decide.SkippedOptOut, Guard: decide.OptOut},
		{JobID: 5, Outcome: decide.DryRun, Body: `{"admin_comment":"strata: workers=2 ps=0 rank=2 cycle=7 n=1","priority":{"number":100010,"set":true},"tres_per_job":"gres/gpu:2"}`},
		{JobID: 1, Outcome: decide.SkippedNotPending, Guard: decide.NotPending},
		{JobID: 99, Outcome: decide.SkippedGone},
		{JobID: 3, Outcome: decide.Refused},
	}
	if diff := cmp.Diff(want, rep.Results, cmpopts.IgnoreFields(slurm.ApplyResult{}, "Detail", "Err")); diff != "" {
		t.Errorf("dry-run results (-want +got):\n%s", diff)
	}
	if w := srv.Writes(); len(w) != 0 {
		t.Errorf("dry run sent %d writes: %v", len(w), w)
	}
}

func TestApplyWritesAndVerifies(t *testing.T) {
	srv, c := recorded(t)
	rep, err := c.Apply(context.Background(), decisions(), slurm.ApplyOptions{Cycle: 8})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	got := map[int64]decide.Outcome{}
	for _, r := range rep.Results {
		got[r.JobID] = r.Outcome
	}
	want := map[int64]decide.Outcome{4: decide.SkippedOptOut, 5: decide.Applied, 1: decide.SkippedNotPending,
		99: decide.SkippedGone, 3: decide.Refused}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if n := len(srv.Writes()); n != 1 {
		t.Errorf("writes = %d, want 1", n)
	}
	// A second identical cycle changes nothing.
	rep, _ = c.Apply(context.Background(), decisions()[:2], slurm.ApplyOptions{Cycle: 8})
	if rep.Count(decide.Unchanged) != 1 || rep.Count(decide.SkippedOptOut) != 1 {
		t.Errorf("second apply: %+v, want 1 unchanged, 1 skipped-opt-out", rep.Results)
	}
}

func TestApplyRaceJobStartedAfterReRead(t *testing.T) {
	srv, c := recorded(t)
	srv.SetJobState(4, "RUNNING")
	rep, err := c.Apply(context.Background(), decisions()[:1], slurm.ApplyOptions{})
	if err != nil || rep.Count(decide.SkippedNotPending) != 1 {
		t.Fatalf("Apply = %+v, %v; want skipped-not-pending", rep, err)
	}
	srv.RemoveJob(4)
	rep, _ = c.Apply(context.Background(), decisions()[:1], slurm.ApplyOptions{})
	if rep.Count(decide.SkippedGone) != 1 {
		t.Fatalf("Apply on a purged job = %+v; want skipped-gone", rep)
	}
}

func TestUnsupportedVersionNamesWhatWasOffered(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"paths":{"/slurm/v0.0.38/jobs/":{},"/slurm/v0.0.39/ping/":{},"/openapi/v3":{}}}`))
	}))
	defer srv.Close()
	_, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "u", Token: "t"}, zerolog.Nop())
	if !errors.Is(err, slurm.ErrUnsupportedVersion) || !strings.Contains(err.Error(), "[v0.0.38 v0.0.39]") {
		t.Fatalf("New = %v, want ErrUnsupportedVersion naming v0.0.38 and v0.0.39", err)
	}
}

func TestAPIErrorKeepsSlurmErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi/v3" {
			_, _ = w.Write([]byte(`{"paths":{"/slurm/v0.0.42/jobs/":{}}}`))
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"errors":[{"error_number":2002,"error":"Access/permission denied","source":"slurm_update_job2()"}],"warnings":[{"description":"be careful","source":"x"}]}`))
	}))
	defer srv.Close()
	c, err := slurm.New(context.Background(), slurm.Config{URL: srv.URL, User: "alice", Token: "t",
		RetryBackoff: time.Millisecond}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Snapshot(context.Background())
	var apiErr *slurm.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, slurm.ErrPermission) {
		t.Fatalf("Snapshot error = %v, want an *APIError wrapping ErrPermission", err)
	}
	for _, s := range []string{"HTTP 500", "slurm error 2002", "Access/permission denied", "warning: be careful"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

// TestApplyFencedByTheLock: a writer that loses its lock in the middle of a
// cycle stops at once (issue 13.10): the write after the failed check and
// every later one are not sent.
func TestApplyFencedByTheLock(t *testing.T) {
	srv, c := recorded(t)
	calls := 0
	fence := func(context.Context) error {
		calls++
		if calls > 1 {
			return errors.New("check lock strata-run/testcluster: advisory lock lost")
		}
		return nil
	}
	ds := []planner.Decision{
		{JobID: 5, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 1, Priority: 100010},
		{JobID: 3, Action: planner.ActionUpdate, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Rank: 2, Priority: 100000},
		{JobID: 99, Action: planner.ActionUpdate, Workers: 1, GPUsPerNode: 1, NodeCount: 1, Rank: 3},
	}
	rep, err := c.Apply(context.Background(), ds, slurm.ApplyOptions{Cycle: 9, Fence: fence})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]decide.Outcome{}
	for _, r := range rep.Results {
		got[r.JobID] = r.Outcome
	}
	if diff := cmp.Diff(map[int64]decide.Outcome{5: decide.Applied, 3: decide.NotSent, 99: decide.NotSent}, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if n := len(srv.Writes()); n != 1 {
		t.Errorf("%d writes reached slurmrestd, want 1 (the one before the lock was lost)", n)
	}
	if calls != 2 {
		t.Errorf("fence checked %d times, want 2 (no check after it failed)", calls)
	}
}
