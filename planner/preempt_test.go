package planner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPreemptible(t *testing.T) {
	running := func(comment string, edit func(*Job)) *Job {
		j := &Job{ID: 1, State: JobRunning, Requeue: true, Comment: comment, GPUsPerNode: 4, Nodes: 1}
		if edit != nil {
			edit(j)
		}
		return j
	}
	tests := []struct {
		name       string
		job        *Job
		want       bool
		wantSignal string
	}{
		{"opted in, requeue allowed, running", running("strata: gpus=1-4 preempt=yes", nil), true, "USR1"},
		{"its own signal", running("strata: preempt=yes signal=SIGUSR2", nil), true, "USR2"},
		{"no opt-in: never", running("strata: gpus=1-4", nil), false, "USR1"},
		{"preempt=no", running("strata: gpus=1-4 preempt=no", nil), false, "USR1"},
		{"no hint at all", running("my notes", nil), false, ""},
		{"invalid hint", running("strata: preempt=yes gpus=9-1", nil), false, ""},
		{"Slurm does not allow a requeue", running("strata: preempt=yes", func(j *Job) { j.Requeue = false }), false, "USR1"},
		{"pending jobs are not preempted", running("strata: preempt=yes", func(j *Job) { j.State = JobPending }), false, "USR1"},
		{"marked non-cooperative", running("strata: preempt=yes", func(j *Job) { j.NonCooperative = true }), false, "USR1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, h := Preemptible(tt.job)
			if diff := cmp.Diff([2]any{tt.want, tt.wantSignal}, [2]any{got, h.Signal}); diff != "" {
				t.Errorf("Preemptible (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobRestartCost(t *testing.T) {
	table := Options{RestartCosts: map[string]time.Duration{"imagenet": 5 * time.Minute}}
	tests := []struct {
		name string
		h    Hints
		o    Options
		want time.Duration
	}{
		{"the hint's restart= wins", Hints{Model: "imagenet", RestartCost: 90 * time.Second}, table, 90 * time.Second},
		{"then the per-model table", Hints{Model: "imagenet"}, table, 5 * time.Minute},
		{"then the site's default", Hints{Model: "bert"}, Options{RestartCost: 3 * time.Minute}, 3 * time.Minute},
		{"else 2 minutes", Hints{}, Options{}, DefaultRestartCost},
	}
	for _, tt := range tests {
		if got := JobRestartCost(tt.h, tt.o); got != tt.want {
			t.Errorf("%s: JobRestartCost = %v, want %v", tt.name, got, tt.want)
		}
	}
}
