package planner_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// bbTimes is what the burst-buffer scenarios compare: whether the job
// starts now, its first reason, and its predicted start and begin time as
// offsets from Now (-1: none).
type bbTimes struct {
	Start     bool
	First     planner.Reason
	Predicted time.Duration
	NotBefore time.Duration
}

func bbTimesOf(d planner.Decision) bbTimes {
	off := func(t time.Time) time.Duration {
		if t.IsZero() {
			return -1
		}
		return t.Sub(t0)
	}
	return bbTimes{d.Start, d.Reasons[0], off(d.PredictedStart), off(d.NotBefore)}
}

func TestBurstBufferStageIn(t *testing.T) {
	const gib = int64(1) << 30
	cifar := "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8"
	one := "strata: model=cifar10 batch=2048 iters=3338 gpus=1"
	node := func(id string) *pt.Builder {
		return pt.Cluster(id, t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "")
	}
	tests := []struct {
		name   string
		policy string
		o      planner.Options
		snap   *planner.Snapshot
		want   bbTimes
	}{{
		// 120 GiB at 1 GiB/s: the job cannot start before its data is in;
		// Slurm should stage it now (no begin time).
		name: "stage-in delays the start", policy: "smd",
		snap: node("in").Pool("bb", 1<<40, 0).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(120*gib, "bb"), pt.BurstBufferState("pending")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 2 * time.Minute, -1},
	}, {
		// 30 GiB: in before the next cycle (60 s): planned as startable now.
		name: "a stage-in within one interval: starts now", policy: "smd",
		snap: node("short").Pool("bb", 1<<40, 0).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(30*gib, "bb"), pt.BurstBufferState("pending")).Build(),
		want: bbTimes{true, planner.ReasonAdmitted, 0, -1},
	}, {
		name: "the pool's bandwidth defaults to Options.BurstBufferBps", policy: "smd",
		o:    planner.Options{BurstBufferBps: float64(2 * gib)},
		snap: node("opt").Pool("bb", 1<<40, 0).Pending(1, 8, cifar, pt.BurstBuffer(240*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 2 * time.Minute, -1},
	}, {
		// The hint's bb= is the data to stage; the request is the capacity.
		name: "bb= in the hint is what is staged", policy: "smd",
		snap: node("hint").Pool("bb", 1<<40, 0).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar+" bb=150G", pt.BurstBuffer(200*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 150 * time.Second, -1},
	}, {
		// Its space is in the pool's use already: a full pool does not hold
		// it back.
		name: "staged in: starts now although the pool is full", policy: "smd",
		snap: node("staged").Pool("bb", 100*gib, 100*gib).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(60*gib, "bb"), pt.BurstBufferState("staged-in")).Build(),
		want: bbTimes{true, planner.ReasonAdmitted, 0, -1},
	}, {
		name: "staging in: waits for its data, holds its space, no begin time", policy: "smd",
		snap: node("staging").Pool("bb", 100*gib, 100*gib).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(90*gib, "bb"), pt.BurstBufferState("staging-in")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 90 * time.Second, -1},
	}, {
		// 40 GiB free: the job's 120 GiB come free when the running job
		// ends (t0+50m, by its time limit); its stage-in then takes two
		// minutes. Its 6 GPUs are free now: it lacks only space, which
		// Slurm gives it when it frees (no begin time: bbplan.go § Waiting
		// for space).
		name: "the pool's space comes back when a running job ends", policy: "smd",
		snap: node("later").Pool("bb", 200*gib, 160*gib).PoolBandwidth(float64(gib)).
			Running(9, 2, "n0001", t0.Add(-10*time.Minute), pt.BurstBuffer(160*gib, "bb"), pt.TimeLimit(time.Hour)).
			Pending(1, 6, "strata: model=cifar10 batch=2048 iters=3338 gpus=6", pt.BurstBuffer(120*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferFull, 52 * time.Minute, -1},
	}, {
		// The same, the running job also holding the GPUs the job needs:
		// it waits for nodes too, so its stage-in is timed just before its
		// planned start (begin time t0+50m), not left to Slurm.
		name: "space and nodes come back when a running job ends: begin time", policy: "smd",
		snap: node("both").Pool("bb", 200*gib, 160*gib).PoolBandwidth(float64(gib)).
			Running(9, 4, "n0001", t0.Add(-10*time.Minute), pt.BurstBuffer(160*gib, "bb"), pt.TimeLimit(time.Hour)).
			Pending(1, 8, "strata: model=cifar10 batch=2048 iters=3338 gpus=8", pt.BurstBuffer(120*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonDeferred, 52 * time.Minute, 50 * time.Minute},
	}, {
		// The same, the running job copying 60 GiB out after it ends
		// (bbout=, 1 GiB/s): its space comes back a minute later.
		name: "a running job's stage-out holds its space after it ends", policy: "smd",
		snap: node("out").Pool("bb", 200*gib, 160*gib).PoolBandwidth(float64(gib)).
			Running(9, 4, "n0001", t0.Add(-10*time.Minute), pt.BurstBuffer(160*gib, "bb"), pt.TimeLimit(time.Hour),
				func(j *planner.Job) { j.Comment = "strata: gpus=4 bbout=60G" }).
			Pending(1, 8, "strata: model=cifar10 batch=2048 iters=3338 gpus=8", pt.BurstBuffer(120*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonDeferred, 53 * time.Minute, 51 * time.Minute},
	}, {
		// Three jobs staging in now share the pool's 4 GiB/s with job 1:
		// 1 GiB/s each (its own limit would be 2), so 120 GiB take two
		// minutes, not one.
		name: "stage-ins under way share the pool's total bandwidth", policy: "smd",
		o: planner.Options{BurstBufferPoolBps: float64(4 * gib)},
		snap: pt.Cluster("shared", t0).Partition("gpu", true).Nodes("n", 2, 8, 64, 512<<10, "gpu", "").
			Pool("bb", 1<<40, 30*gib).PoolBandwidth(float64(2*gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(120*gib, "bb"), pt.BurstBufferState("pending")).
			Pending(2, 1, one, pt.BurstBuffer(10*gib, "bb"), pt.BurstBufferState("staging-in")).
			Pending(3, 1, one, pt.BurstBuffer(10*gib, "bb"), pt.BurstBufferState("allocated")).
			Pending(4, 1, one, pt.BurstBuffer(10*gib, "bb"), pt.BurstBufferState("staging-in")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 2 * time.Minute, -1},
	}, {
		// Without the pool (the unaware what-if) the job starts now.
		name: "no pool in the snapshot: the request is ignored", policy: "smd",
		snap: node("none").Pending(1, 8, cifar, pt.BurstBuffer(60*gib, "bb"), pt.BurstBufferState("pending")).Build(),
		want: bbTimes{true, planner.ReasonAdmitted, 0, -1},
	}, {
		name: "fifo: not started before its data is in", policy: "fifo",
		snap: node("fifo").Pool("bb", 1<<40, 0).PoolBandwidth(float64(gib)).
			Pending(1, 8, cifar, pt.BurstBuffer(120*gib, "bb")).Build(),
		want: bbTimes{false, planner.ReasonBurstBufferStaging, 2 * time.Minute, -1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := bbTimesOf(plan(t, tc.policy, tc.o, tc.snap)[1])
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("job 1 (-want +got):\n%s", d)
			}
		})
	}
}

// A pool's granularity rounds each job's space up, as Slurm allocates it:
// two jobs of 1.5 GiB fit a 3 GiB pool of bytes, but only one when the
// pool hands out whole GiB (2 GiB each).
func TestBurstBufferGranularity(t *testing.T) {
	for _, tc := range []struct {
		gran   int64
		starts int
	}{{0, 2}, {1 << 30, 1}} {
		s := pt.Cluster("gran", t0).Partition("gpu", true).Nodes("n", 2, 4, 32, 256*1024, "gpu", "").
			Pool("bb", 3<<30, 0).
			Pending(1, 1, "strata: gpus=1", pt.BurstBuffer(3<<29, "bb")).
			Pending(2, 1, "strata: gpus=1", pt.BurstBuffer(3<<29, "bb")).Build()
		s.BurstBufferPools[0].GranularityBytes = tc.gran
		p, _ := planner.NewPolicy("smd", planner.Options{})
		plan, err := p.Plan(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range plan.Decisions {
			if d.Start {
				n++
			}
		}
		if n != tc.starts {
			t.Errorf("granularity %d: %d starts, want %d", tc.gran, n, tc.starts)
		}
	}
}

// A job that lacks only burst-buffer space ranks among the starts by its
// cost, so that Slurm's burst-buffer plugin gives it the space as soon as
// it frees, ahead of a longer job that starts now on space that was free;
// it gets no begin time. (Before, it ranked after every start, ordered by
// its planned start, with a begin time: on pools many large jobs wait for
// that cost up to 39 % of the average JCT, docs/evaluation.md.)
func TestBurstBufferWaitingForSpaceRanksByCost(t *testing.T) {
	const gib = int64(1) << 30
	snap := pt.Cluster("rank", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
		Pool("bb", 100*gib, 60*gib).
		Running(9, 1, "n0001", t0.Add(-10*time.Minute), pt.BurstBuffer(60*gib, "bb"), pt.TimeLimit(time.Hour)).
		Pending(1, 1, "strata: model=cifar10 batch=2048 iters=500 gpus=1", pt.BurstBuffer(60*gib, "bb")).
		Pending(2, 1, "strata: model=cifar10 batch=2048 iters=20000 gpus=1", pt.BurstBuffer(10*gib, "bb")).Build()
	ds := plan(t, "smd", planner.Options{}, snap)
	type got struct {
		Start     bool
		Rank      int
		First     planner.Reason
		NotBefore bool
	}
	g := map[int64]got{}
	for _, id := range []int64{1, 2} {
		d := ds[id]
		g[id] = got{d.Start, d.Rank, d.Reasons[0], !d.NotBefore.IsZero()}
	}
	want := map[int64]got{
		1: {false, 1, planner.ReasonBurstBufferFull, false},
		2: {true, 2, planner.ReasonAdmitted, false},
	}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
}
