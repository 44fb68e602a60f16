package sim

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// preemptRun runs a scripted policy in Slurm mode on one node of 4 GPUs
// and returns (first start, end) per trace job ID and the result.
func preemptRun(t *testing.T, trace string, preemptible bool, p scripted) (map[string][2]float64, *Result) {
	t.Helper()
	cfg := Config{Scheduler: SchedulerSlurm, Cluster: ClusterSpec{Nodes: 1, GPUsPerNode: 4}, Preemptible: preemptible,
		Slurm: SlurmConfig{Reservations: 1}.withDefaults()}.withDefaults()
	e := newEngine(cfg, mustTrace(t, trace), "scripted", p)
	if err := e.slurmLoop(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for i := range e.jobs {
		j := &e.jobs[i]
		out[j.tj.ID] = [2]float64{math.Round(j.firstStart*10) / 10, math.Round(j.end*10) / 10}
	}
	return out, e.result()
}

type restarts struct {
	Preemptions, Resizes, Restarts, HonestyViolations, LinearScaled int
	LostGPUHours                                                    float64
}

func restartsOf(r *Result) restarts {
	return restarts{r.Preemptions, r.Resizes, r.Restarts, r.HonestyViolations, r.LinearScaled, r.LostGPUHours}
}

// The preemption path in Slurm mode, step by step: a (4 GPUs, 1000 s)
// runs from 0; b (4 GPUs, 100 s) arrives at 10 and waits. Strata's cycle
// at 660 preempts a (it has run the 10 minutes the guard asks for): a
// keeps its GPUs while it saves its checkpoint (60 s), requeues itself at
// 720 with its begin time 121 s later (841), b starts at 720 (the requeue
// frees the node and triggers a main pass) and ends at 820; a is eligible
// from 841 and started by the next periodic main pass (900), pays its
// start-up (30 s) and does the 340 s of work it had left: it ends at
// 1270. Lost: 4 GPUs × (60 + 30) s.
func TestSlurmPreemptSignalCheckpointRequeueRestart(t *testing.T) {
	trace := "job_id,submit_time,duration_s,gpus\na,0,1000,4\nb,10,100,4\n"
	stop := scripted{660: {{JobID: 1, Action: planner.ActionPreempt, Reasons: []planner.Reason{planner.ReasonPreempted}}}}
	got, r := preemptRun(t, trace, true, stop)
	want := map[string][2]float64{"a": {0, 1270}, "b": {720, 820}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(restarts{Preemptions: 1, Restarts: 1, LostGPUHours: 0.1}, restartsOf(r)); diff != "" {
		t.Errorf("restarts (-want +got):\n%s", diff)
	}
	if r.RestartsPerJob != 0.5 || r.RestartedJobs != 1 || r.MaxRestarts != 1 {
		t.Errorf("restarts per job %v, restarted jobs %d, max %d; want 0.5, 1, 1", r.RestartsPerJob, r.RestartedJobs, r.MaxRestarts)
	}
}

// A preempt with a size restarts the job at that size: a is rewritten to
// 2 GPUs while pending and restarts on 2 GPUs; without a scaling
// curve its 340 s of work left take twice as long on half the GPUs (a
// linear guess, counted): 900 + 30 + 680 = 1610.
func TestSlurmPreemptRestartsAtTheNewSize(t *testing.T) {
	trace := "job_id,submit_time,duration_s,gpus\na,0,1000,4\nb,10,100,2\n"
	shrink := scripted{660: {{JobID: 1, Action: planner.ActionPreempt, Workers: 2, GPUsPerNode: 2, NodeCount: 1,
		Reasons: []planner.Reason{planner.ReasonResizedRestart}}}}
	got, r := preemptRun(t, trace, true, shrink)
	want := map[string][2]float64{"a": {0, 1610}, "b": {720, 820}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(restarts{Resizes: 1, Restarts: 1, LinearScaled: 1, LostGPUHours: round((4*60+2*30)/3600.0, 2)}, restartsOf(r)); diff != "" {
		t.Errorf("restarts (-want +got):\n%s", diff)
	}
}

// Nothing is ever signalled that did not opt in, or that the guards hold:
// without --preemptible the preempt is a policy bug (counted) and a runs
// to its end; before its 10 minutes the guard holds it.
func TestSlurmPreemptOnlyOptedInAndGuarded(t *testing.T) {
	trace := "job_id,submit_time,duration_s,gpus\na,0,1000,4\nb,10,100,4\n"
	stopAt := func(t float64) scripted {
		return scripted{t: {{JobID: 1, Action: planner.ActionPreempt, Reasons: []planner.Reason{planner.ReasonPreempted}}}}
	}
	untouched := map[string][2]float64{"a": {0, 1000}, "b": {1000, 1100}}
	tests := []struct {
		name        string
		preemptible bool
		p           scripted
		want        restarts
	}{
		{"not opted in", false, stopAt(660), restarts{HonestyViolations: 1}},
		{"ran less than 10 minutes", true, stopAt(540), restarts{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := preemptRun(t, trace, tt.preemptible, tt.p)
			if diff := cmp.Diff(untouched, got); diff != "" {
				t.Errorf("(start, end) per job (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, restartsOf(r)); diff != "" {
				t.Errorf("restarts (-want +got):\n%s", diff)
			}
		})
	}
}
