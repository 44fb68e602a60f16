package planner_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// brief is the part of a decision the scenario tests compare.
type brief struct {
	Action      planner.Action
	Start       bool
	Workers     int
	GPUsPerNode int
	NodeCount   int
	First       planner.Reason
}

func plan(t *testing.T, policy string, o planner.Options, s *planner.Snapshot) map[int64]planner.Decision {
	t.Helper()
	p, err := planner.NewPolicy(policy, o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, policy, o.Reshape, s, got)
	out := map[int64]planner.Decision{}
	for _, d := range got.Decisions {
		out[d.JobID] = d
	}
	return out
}

func briefOf(d planner.Decision) brief {
	return brief{d.Action, d.Start, d.Workers, d.GPUsPerNode, d.NodeCount, d.Reasons[0]}
}

func TestSMDScenarios(t *testing.T) {
	cifar := "strata: model=cifar10 batch=2048 iters=3338 gpus=1-16"
	// early: a wide short job waited 2 h (12 × its run) beside a narrow one
	// that fits now and would end after the running job frees the node.
	early := func() *planner.Snapshot {
		return pt.Cluster("early", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
			Running(1, 4, "n0001", t0.Add(-time.Hour), pt.TimeLimit(90*time.Minute)).
			Pending(2, 8, "wide", pt.TimeLimit(10*time.Minute), pt.Submitted(t0.Add(-2*time.Hour))).
			Pending(3, 4, "narrow", pt.TimeLimit(time.Hour)).Build()
	}
	tests := []struct {
		name string
		o    planner.Options
		snap *planner.Snapshot
		want map[int64]brief
	}{
		{
			name: "packs a scalable job onto one node",
			snap: pt.Cluster("pack", t0).Partition("gpu", true).Nodes("n", 3, 8, 64, 512<<10, "gpu", "").
				Pending(1, 1, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8").Build(),
			want: map[int64]brief{1: {planner.ActionUpdate, true, 8, 8, 1, planner.ReasonAdmitted}},
		},
		{
			name: "spans nodes in whole-node shapes",
			snap: pt.Cluster("span", t0).Partition("gpu", true).Nodes("n", 4, 4, 64, 512<<10, "gpu", "").
				Pending(1, 1, cifar).Build(),
			want: map[int64]brief{1: {planner.ActionUpdate, true, 16, 4, 4, planner.ReasonAdmitted}},
		},
		{
			name: "burst buffer full",
			snap: pt.Cluster("bb", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").Pool("bb", 4<<40, 3<<40).
				Pending(1, 1, cifar+" bb=2T").Build(),
			// It waits for the pool at the size it will start with (the whole node).
			want: map[int64]brief{1: {planner.ActionUpdate, false, 8, 8, 1, planner.ReasonBurstBufferFull}},
		},
		{
			name: "fixed request keeps its size, priority only",
			snap: pt.Cluster("fixed", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
				Pending(1, 2, "strata: model=cifar10 batch=2048 iters=3338").Pending(2, 3, "plain comment").Build(),
			want: map[int64]brief{
				1: {planner.ActionUpdate, true, 2, 2, 1, planner.ReasonAdmitted},
				2: {planner.ActionUpdate, true, 3, 3, 1, planner.ReasonAdmitted},
			},
		},
		{
			name: "aged job reserves: long jobs wait, short ones backfill",
			o:    planner.Options{StarvationStretch: -1}, // age alone
			snap: pt.Cluster("aged", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
				Running(1, 6, "n0001", t0.Add(-time.Hour), pt.TimeLimit(2*time.Hour)).
				Pending(2, 8, "waited long", pt.Submitted(t0.Add(-30*time.Hour))).
				Pending(3, 2, "long", pt.TimeLimit(10*time.Hour)).
				Pending(4, 2, "short", pt.TimeLimit(30*time.Minute)).Build(),
			want: map[int64]brief{
				// 2 starts the moment job 1 frees the node: no begin time;
				// 3 would fit when 4 ends, but the plan runs it after 2, and it
				// is long (10 h): deferred, so that Slurm does not start it
				// into room that frees between cycles (contract.go).
				2: {planner.ActionUpdate, false, 8, 8, 1, planner.ReasonWaitResources},
				3: {planner.ActionUpdate, false, 2, 2, 1, planner.ReasonDeferred},
				4: {planner.ActionUpdate, true, 2, 2, 1, planner.ReasonAdmitted},
			},
		},
		{
			// Issue 31: a begin time hides a job from backfill's
			// reservations, so a short job that does not fit now is left to
			// Slurm's order however far the plan holds it back.
			name: "a short job that does not fit now gets no begin time",
			o:    planner.Options{StarvationStretch: -1}, // age alone
			snap: pt.Cluster("short", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
				Running(1, 6, "n0001", t0.Add(-time.Hour), pt.TimeLimit(2*time.Hour)).
				Pending(2, 8, "waited long", pt.Submitted(t0.Add(-30*time.Hour))).
				Pending(3, 4, "short", pt.TimeLimit(30*time.Minute)).Build(),
			want: map[int64]brief{
				2: {planner.ActionUpdate, false, 8, 8, 1, planner.ReasonWaitResources},
				3: {planner.ActionUpdate, false, 4, 4, 1, planner.ReasonWaitResources},
			},
		},
		{
			// With the early starvation limit the wide job is promoted and
			// reserved for, and the narrow job that would pass it waits.
			name: "early starvation promotes the wide job narrow ones pass",
			o:    planner.Options{EarlyStarvationStretch: 8},
			snap: early(),
			want: map[int64]brief{
				2: {planner.ActionUpdate, false, 8, 8, 1, planner.ReasonWaitResources},
				3: {planner.ActionUpdate, false, 4, 4, 1, planner.ReasonDeferred},
			},
		},
		{
			name: "without it the narrow job passes",
			snap: early(),
			want: map[int64]brief{
				2: {planner.ActionUpdate, false, 8, 8, 1, planner.ReasonWaitResources},
				3: {planner.ActionUpdate, true, 4, 4, 1, planner.ReasonAdmitted},
			},
		},
		{
			name: "long jobs hold at most a quarter of the partition",
			o:    planner.Options{StarvationStretch: -1, StarvationAge: 24 * time.Hour}, // age alone
			snap: pt.Cluster("long", t0).Partition("gpu", true).Nodes("n", 4, 4, 64, 512<<10, "gpu", "").
				Pending(1, 4, "long a", pt.TimeLimit(10*time.Hour), pt.Submitted(t0.Add(-2*time.Hour))).
				Pending(2, 4, "long b", pt.TimeLimit(10*time.Hour), pt.Submitted(t0.Add(-time.Hour))).
				Pending(3, 4, "short", pt.TimeLimit(time.Hour)).
				Pending(4, 4, "long but aged", pt.TimeLimit(10*time.Hour), pt.Submitted(t0.Add(-25*time.Hour))).Build(),
			want: map[int64]brief{
				// They fit now, but the share keeps them waiting: deferred.
				1: {planner.ActionUpdate, false, 4, 4, 1, planner.ReasonDeferred},
				2: {planner.ActionUpdate, false, 4, 4, 1, planner.ReasonDeferred},
				3: {planner.ActionUpdate, true, 4, 4, 1, planner.ReasonAdmitted},
				4: {planner.ActionUpdate, true, 4, 4, 1, planner.ReasonAdmitted},
			},
		},
		{
			name: "gpu memory per worker checked when configured",
			o:    planner.Options{GPUMemoryMB: map[string]int64{"t4": 15360}},
			snap: pt.Cluster("hbm", t0).Partition("gpu", true).Nodes("n", 2, 4, 64, 512<<10, "gpu", "t4").
				Pending(1, 1, "strata: model=resnet50 batch=64 iters=1000 gpus=1-4").
				Pending(2, 1, "strata: model=resnet50 batch=128 iters=1000 gpus=1-4").Build(),
			want: map[int64]brief{
				// iters fixes the iterations of a per-worker batch: one worker is best.
				1: {planner.ActionUpdate, true, 1, 1, 1, planner.ReasonAdmitted},
				2: {planner.ActionUpdate, false, 1, 1, 1, planner.ReasonMemoryInfeasible},
			},
		},
		{
			name: "energy weight buys fewer GPUs",
			o:    planner.Options{EnergyWeight: 1e6},
			snap: pt.Cluster("energy", t0).Partition("gpu", true).Nodes("n", 2, 8, 64, 512<<10, "gpu", "").
				Pending(1, 1, cifar).Build(),
			want: map[int64]brief{1: {planner.ActionUpdate, true, 1, 1, 1, planner.ReasonAdmitted}},
		},
	}
	for _, tt := range tests {
		for _, policy := range []string{"smd"} {
			t.Run(policy+"/"+tt.name, func(t *testing.T) {
				got := map[int64]brief{}
				for id, d := range plan(t, policy, tt.o, tt.snap) {
					if _, ok := tt.want[id]; ok {
						got[id] = briefOf(d)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestPriorityMapping(t *testing.T) {
	s := pt.Cluster("prio", t0).Partition("gpu", true).Nodes("n", 1, 2, 64, 512<<10, "gpu", "").
		Pending(1, 2, "a", pt.TimeLimit(3*time.Hour)).Pending(2, 2, "b", pt.TimeLimit(time.Hour)).
		Pending(3, 2, "c", pt.TimeLimit(2*time.Hour)).Build()
	got := map[int64][2]int64{}
	for id, d := range plan(t, "smd", planner.Options{PriorityBase: 1000, PriorityStep: 5}, s) {
		got[id] = [2]int64{int64(d.Rank), d.Priority}
	}
	// Job 2 (1 h) starts; then shortest first: 3 (2 h), 1 (3 h).
	want := map[int64][2]int64{2: {1, 1010}, 3: {2, 1005}, 1: {3, 1000}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rank/priority mismatch (-want +got):\n%s", diff)
	}
}

func TestTiresiasPreemptsAttainedService(t *testing.T) {
	s := pt.Cluster("las", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Running(1, 4, "n0001", t0.Add(-2*time.Hour), pt.Attained(4*7200)).
		Pending(2, 4, "new job").Build()
	got := map[int64]brief{}
	for id, d := range plan(t, "tiresias", planner.Options{Reshape: true}, s) {
		got[id] = briefOf(d)
	}
	want := map[int64]brief{
		1: {planner.ActionPreempt, false, 4, 4, 1, planner.ReasonPreempted},
		2: {planner.ActionUpdate, true, 4, 4, 1, planner.ReasonAdmitted},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if d := plan(t, "smd", planner.Options{}, s); d[1].Action != "" || d[2].Start {
		t.Errorf("smd must neither consider the running job nor start job 2: %+v", d)
	}
}

func TestResizesElasticRunningJob(t *testing.T) {
	s := pt.Cluster("opt", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
		Running(1, 2, "n0001", t0.Add(-10*time.Minute), func(j *planner.Job) {
			j.Comment = "strata: model=cifar10 batch=2048 iters=20000 gpus=1-8"
		}).Build()
	for _, policy := range []string{"optimus", "smd-elastic"} {
		if d := plan(t, policy, planner.Options{}, s)[1]; d.Action == planner.ActionResize {
			t.Errorf("%s resized a running job although the caller cannot reshape: %+v", policy, d)
		}
		d := plan(t, policy, planner.Options{Reshape: true}, s)[1]
		if d.Action != planner.ActionResize || d.Workers != 8 || len(d.Placement) != 1 {
			t.Errorf("%s decision %+v, want resize to 8 workers on one node", policy, d)
		}
	}
	if d, ok := plan(t, "smd", planner.Options{}, s)[1]; ok {
		t.Errorf("smd considered the running job: %+v", d)
	}
}

// A job Slurm does not consider yet (its begin time has not come) is sized
// and ranked, but no policy starts or defers it before then; once its
// begin time has come it is planned like any other.
func TestBeginTimeJobsWait(t *testing.T) {
	build := func(begin time.Time) *planner.Snapshot {
		return pt.Cluster("begin", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
			Pending(1, 2, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4", func(j *planner.Job) { j.BeginTime = begin }).Build()
	}
	for _, policy := range planner.PolicyNames() {
		d := plan(t, policy, planner.Options{}, build(t0.Add(time.Hour)))[1]
		if d.Action != planner.ActionUpdate || d.Reasons[0] != planner.ReasonBeginTime || d.Start || !d.NotBefore.IsZero() {
			t.Errorf("%s: future begin time: %+v, want a waiting update (begin_time), no deferral", policy, d)
		}
		if !d.PredictedStart.IsZero() && d.PredictedStart.Before(t0.Add(time.Hour)) {
			t.Errorf("%s: predicted start %v before the begin time", policy, d.PredictedStart)
		}
		if d := plan(t, policy, planner.Options{}, build(t0.Add(-time.Minute)))[1]; d.Action != planner.ActionUpdate || !d.Start {
			t.Errorf("%s: past begin time: %+v, want a start", policy, d)
		}
	}
}

// The scenario of the Slurm-loop issue: a blocker holds all 8 GPUs of two
// 4-GPU nodes; two ImageNet jobs that asked for 4 GPUs each (gpus=1-4)
// wait. Slurm starts them as written the moment the blocker ends, between
// Strata's cycles, so the written sizes must be the sizes they start
// with: together at least 6 of the 8 GPUs (the long-job share allows 6
// when no short job waits), planned to start when the blocker ends.
// (Before, both were written with 1 GPU, the cheapest size while waiting.)
func TestWaitingJobsWrittenAtTheirStartSize(t *testing.T) {
	started := t0.Add(-10 * time.Second)
	b := pt.Cluster("loop", t0).Partition("gpu", true).Nodes("n", 2, 4, 16, 64000, "gpu", "")
	for k, node := range []string{"n0001", "n0002"} {
		b = b.Running(int64(k+1), 4, node, started, pt.TimeLimit(time.Minute))
	}
	for k, model := range []string{"resnet50", "vgg16"} {
		b = b.Pending(int64(10+k), 4, "strata: model="+model+" batch=64 epochs=1 samples=1281167 gpus=1-4",
			pt.TimeLimit(24*time.Hour))
	}
	for _, policy := range []string{"smd"} {
		ds := plan(t, policy, planner.Options{}, b.Build())
		total := 0
		for _, id := range []int64{10, 11} {
			d := ds[id]
			if d.Start || !d.NotBefore.IsZero() || d.Action != planner.ActionUpdate {
				t.Errorf("%s: job %d %+v: want a waiting update without begin time", policy, id, d)
			}
			// The blocker ends at its time limit (50 s from now); a running
			// job is never predicted to end before the next cycle (60 s).
			if want := t0.Add(time.Minute); !d.PredictedStart.Equal(want) {
				t.Errorf("%s: job %d predicted start %v, want the blocker's end %v", policy, id, d.PredictedStart, want)
			}
			total += d.GPUsPerNode * d.NodeCount
		}
		if total < 6 {
			t.Errorf("%s: waiting jobs written with %d GPUs together, want at least 6 of the 8 the blocker frees", policy, total)
		}
	}
}

// A job the adapter could not read fully is left untouched by every policy,
// with the reason; the other jobs are planned.
func TestUnreadableJobLeftAlone(t *testing.T) {
	s := pt.Cluster("unreadable", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
		Pending(1, 2, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4", func(j *planner.Job) {
			j.Unreadable = "job 1: parse size \"lots\": no number"
		}).
		Pending(2, 2, "no hint").Build()
	for _, policy := range planner.PolicyNames() {
		ds := plan(t, policy, planner.Options{}, s)
		if d := ds[1]; d.Action != planner.ActionKeep || d.Reasons[0] != planner.ReasonUnreadable || d.Detail == "" {
			t.Errorf("%s: unreadable job: %+v", policy, d)
		}
		if d := ds[2]; d.Action != planner.ActionUpdate || !d.Start {
			t.Errorf("%s: the other job is not planned: %+v", policy, d)
		}
	}
}

// Arrays and heterogeneous jobs are left to Slurm; a per-task GPU request
// (--gpus-per-task) counts its tasks and keeps its size.
func TestArrayHetAndPerTaskJobs(t *testing.T) {
	s := pt.Cluster("groups", t0).Partition("gpu", true).Nodes("n", 2, 4, 64, 512<<10, "gpu", "").
		Pending(1, 1, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-4", func(j *planner.Job) { j.ArrayJobID = 1 }).
		Pending(2, 1, "", func(j *planner.Job) { j.HetJobID = 2 }).
		Pending(3, 1, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8", func(j *planner.Job) {
			j.GPUsPerJob, j.GPUsPerNode, j.GPUsPerTask, j.Tasks = 0, 0, 1, 3
		}).Build()
	for _, policy := range planner.PolicyNames() {
		ds := plan(t, policy, planner.Options{}, s)
		if d := ds[1]; d.Action != planner.ActionKeep || d.Reasons[0] != planner.ReasonArrayJob {
			t.Errorf("%s: array job: %+v", policy, d)
		}
		if d := ds[2]; d.Action != planner.ActionKeep || d.Reasons[0] != planner.ReasonHetJob {
			t.Errorf("%s: het job: %+v", policy, d)
		}
		if d := ds[3]; d.Action != planner.ActionUpdate || d.Workers != 3 {
			t.Errorf("%s: per-task job: %+v, want an update keeping its 3 GPUs", policy, d)
		}
	}
}

// TestStarvationIsRelativeToTheJobsLength: both jobs waited 30 h, past the
// starvation age; the 1 h job waited 30 times its length and is promoted,
// the 10 h job (3 times) is not yet: in a queue where everyone waits a day,
// aging must not turn the plan into age order. Past StarvationMaxWait every
// job is promoted.
func TestStarvationIsRelativeToTheJobsLength(t *testing.T) {
	snap := func(wait time.Duration) *planner.Snapshot {
		return pt.Cluster("stretch", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
			Running(9, 4, "n0001", t0.Add(-time.Hour), pt.TimeLimit(2*time.Hour)).
			Pending(1, 4, "long", pt.TimeLimit(10*time.Hour), pt.Submitted(t0.Add(-wait-time.Minute))).
			Pending(2, 4, "short", pt.TimeLimit(time.Hour), pt.Submitted(t0.Add(-wait))).Build()
	}
	tests := []struct {
		name      string
		wait      time.Duration
		wantAged  map[int64]bool
		wantFirst int64
	}{
		{"30 h", 30 * time.Hour, map[int64]bool{1: false, 2: true}, 2},
		{"8 days", 8 * 24 * time.Hour, map[int64]bool{1: true, 2: true}, 1}, // both aged: the older first
	}
	for _, tt := range tests {
		for _, policy := range []string{"smd", "fifo"} {
			t.Run(policy+"/"+tt.name, func(t *testing.T) {
				ds := plan(t, policy, planner.Options{}, snap(tt.wait))
				for id, want := range tt.wantAged {
					if got := slices.Contains(ds[id].Reasons, planner.ReasonAged); got != want {
						t.Errorf("job %d aged = %v, want %v (reasons %v)", id, got, want, ds[id].Reasons)
					}
				}
				other := 3 - tt.wantFirst
				if ds[tt.wantFirst].Rank >= ds[other].Rank {
					t.Errorf("job %d ranked %d, job %d ranked %d: want job %d first", tt.wantFirst, ds[tt.wantFirst].Rank,
						other, ds[other].Rank, tt.wantFirst)
				}
			})
		}
	}
}
