package planner_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// On Slurm (Options.Reshape false) Tiresias preempts only preemptible
// jobs: a preempted job keeps its GPUs until it has checkpointed and
// requeued itself, so the job that wins them waits for them (ranked first,
// not deferred: Slurm starts it when they free up), and the preempt carries
// no size (it restarts at the size it had).
func TestTiresiasPreemptsOnlyPreemptibleJobs(t *testing.T) {
	const opted = "strata: gpus=1-4 preempt=yes"
	build := func(opts ...pt.JobOpt) *planner.Snapshot {
		return pt.Cluster("las", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "").
			Running(1, 4, "n0001", t0.Add(-2*time.Hour), append([]pt.JobOpt{pt.Attained(4 * 7200)}, opts...)...).
			Pending(2, 4, "new job").Build()
	}
	preempted := brief{planner.ActionPreempt, false, 0, 0, 0, planner.ReasonPreempted}
	waits := brief{planner.ActionUpdate, false, 4, 4, 1, planner.ReasonWaitResources}
	tests := []struct {
		name string
		snap *planner.Snapshot
		want map[int64]brief
	}{
		{"opted in and requeueable: preempted", build(pt.Preemptible(opted)), map[int64]brief{1: preempted, 2: waits}},
		{"no opt-in: left running", build(), map[int64]brief{2: waits}},
		{"not requeueable in Slurm", build(pt.Preemptible(opted), func(j *planner.Job) { j.Requeue = false }), map[int64]brief{2: waits}},
		{"non-cooperative", build(pt.Preemptible(opted), func(j *planner.Job) { j.NonCooperative = true }), map[int64]brief{2: waits}},
		{"already signalled", build(pt.Preemptible(opted), func(j *planner.Job) { j.Signalled = t0.Add(-time.Minute) }), map[int64]brief{2: waits}},
		{"preempted enough today", build(pt.Preemptible(opted), func(j *planner.Job) { j.PreemptsToday = 2 }), map[int64]brief{2: waits}},
		{"ran less than the minimum", build(pt.Preemptible(opted), func(j *planner.Job) { j.StartTime = t0.Add(-5 * time.Minute) }), map[int64]brief{2: waits}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := plan(t, "tiresias", planner.Options{}, tt.snap)
			got := map[int64]brief{}
			for id, d := range ds {
				got[id] = briefOf(d)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if d := ds[2]; d.Rank != 1 || !d.NotBefore.IsZero() {
				t.Errorf("job 2: rank %d, begin time %v; want rank 1 and no begin time", d.Rank, d.NotBefore)
			}
		})
	}
}

// On Slurm Optimus resizes a preemptible running job by preempting it with
// the size it restarts at (resized_restart); a job that did not opt in
// keeps its size.
func TestOptimusResizesPreemptibleJobsByRestart(t *testing.T) {
	build := func(opts ...pt.JobOpt) *planner.Snapshot {
		return pt.Cluster("opt", t0).Partition("gpu", true).Nodes("n", 1, 8, 64, 512<<10, "gpu", "").
			Running(1, 2, "n0001", t0.Add(-20*time.Minute), opts...).Build()
	}
	opted := pt.Preemptible("strata: model=cifar10 batch=2048 iters=20000 gpus=1-8 preempt=yes")
	d := plan(t, "optimus", planner.Options{}, build(opted))[1]
	if got, want := briefOf(d), (brief{planner.ActionPreempt, false, 8, 8, 1, planner.ReasonResizedRestart}); got != want {
		t.Errorf("preemptible job: %+v, want %+v", got, want)
	}
	notOpted := func(j *planner.Job) { j.Comment = "strata: model=cifar10 batch=2048 iters=20000 gpus=1-8" }
	if d, ok := plan(t, "optimus", planner.Options{}, build(notOpted))[1]; ok {
		t.Errorf("a job that did not opt in got a decision: %+v", d)
	}
}

// SMD stops a preemptible long job for the short jobs it blocks when the
// gain is worth the restart, and only then: a 4-GPU ImageNet job with
// hours left holds the only node; 4 CIFAR-10 jobs of 4 GPUs and a few
// minutes each wait behind it. Stopping it costs it its restart (2
// minutes) and the short jobs' run times; the short jobs save hours each.
// Without the opt-in, before its 10 minutes, at its daily cap, when it
// ends soon anyway, or when nobody waits, it keeps running.
func TestSMDPreemptsLongJobForShortJobs(t *testing.T) {
	long := "strata: model=imagenet batch=3200 iters=%d gpus=1-4 preempt=yes"
	build := func(shorts int, iters int, started time.Duration, opts ...pt.JobOpt) *planner.Snapshot {
		b := pt.Cluster("smd-preempt", t0).Partition("gpu", true).Nodes("n", 1, 4, 64, 512<<10, "gpu", "t4").
			Running(1, 4, "n0001", t0.Add(-started), append([]pt.JobOpt{pt.Preemptible(fmt.Sprintf(long, iters))}, opts...)...)
		for k := range shorts {
			b = b.Pending(int64(10+k), 4, "strata: model=cifar10 batch=2048 iters=1200 gpus=1-4")
		}
		return b.Build()
	}
	tests := []struct {
		name string
		snap *planner.Snapshot
		want planner.Action
	}{
		{"four short jobs wait hours: stop it", build(4, 10000, time.Hour), planner.ActionPreempt},
		{"no opt-in: it runs on", build(4, 10000, time.Hour, func(j *planner.Job) { j.Requeue = false }), ""},
		{"ran 5 minutes: not yet", build(4, 10000, 5*time.Minute), ""},
		{"preempted twice today: never", build(4, 10000, time.Hour, func(j *planner.Job) { j.PreemptsToday = 2 }), ""},
		{"it ends in 20 minutes: not worth it", build(4, 600, 20*time.Minute), ""},
		{"nobody waits: nothing to gain", build(0, 10000, time.Hour), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := plan(t, "smd", planner.Options{}, tt.snap)
			d, ok := ds[1]
			if got := d.Action; (tt.want == "") == ok || ok && got != tt.want {
				t.Fatalf("running job: %+v (decided: %v), want %q", d, ok, tt.want)
			}
			if !ok {
				return
			}
			if d.Workers != 0 && d.Workers > 4 {
				t.Errorf("restart size %d above its size", d.Workers)
			}
			// The first short job waits for the GPUs the preempted job
			// frees (no begin time: Slurm starts it when they are free);
			// none starts on GPUs the job still holds.
			if w := ds[10]; w.Start || !w.NotBefore.IsZero() || w.Rank != 1 {
				t.Errorf("short job 10: %+v; want rank 1, waiting without a begin time", w)
			}
			for id := int64(11); id < 14; id++ {
				if ds[id].Start {
					t.Errorf("short job %d starts on GPUs the preempted job still holds", id)
				}
			}
		})
	}
}
