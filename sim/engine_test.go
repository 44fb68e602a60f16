package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner"
)

func mustTrace(t *testing.T, csv string) *Trace {
	t.Helper()
	tr, err := ReadTrace(strings.NewReader(csv), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// summary keeps the fields the engine tests check.
type summary struct {
	Jobs                                   int
	AvgJCT, AvgQueue, Makespan, Util, KWh  float64
	Preempt, Resize, Violations, Rejected  int
	Dropped, Unfinished, Changed, Restarts int
}

func summarize(r *Result) summary {
	return summary{Jobs: r.Jobs, AvgJCT: r.AvgJCT, AvgQueue: r.AvgQueue, Makespan: r.Makespan, Util: r.GPUUtil,
		KWh: r.EnergyKWh, Preempt: r.Preemptions, Resize: r.Resizes, Violations: r.HonestyViolations,
		Rejected: r.RejectedStarts + r.RejectedResizes, Dropped: r.Dropped, Unfinished: r.Unfinished,
		Changed: r.ChangedAllocations, Restarts: r.Preemptions + r.Resizes}
}

const threeJobs = `job_id,submit_time,duration_s,gpus
a,0,100,2
b,0,50,4
c,30,10,1
`

// Hand-computed runs on 2 nodes × 2 T4 with a 60 s interval.
func TestRunHandComputed(t *testing.T) {
	tests := []struct {
		name   string
		trace  string
		policy string
		p      planner.Policy
		pool   int64
		want   summary
	}{{
		// t=0: a starts (b needs 4, only 2 free); t=60: c starts, ends 70;
		// a ends 100; t=120: b starts, ends 170. JCT 100, 170, 40.
		// busy 2·100+4·50+1·10 = 410 GPU-s of 4·170; energy (410·70+270·10)/3.6e6.
		name: "greedy skip-ahead", trace: threeJobs, policy: "fifo-test", p: greedy{},
		want: summary{Jobs: 3, AvgJCT: 103.3, AvgQueue: 50, Makespan: 170, Util: 0.6029, KWh: 0.009},
	}, {
		// A 5-GPU job can never run on 4 GPUs: dropped up front.
		name: "oversized job dropped", trace: threeJobs + "d,0,10,5\n", policy: "fifo-test", p: greedy{},
		want: summary{Jobs: 3, AvgJCT: 103.3, AvgQueue: 50, Makespan: 170, Util: 0.6029, KWh: 0.009, Dropped: 1},
	}, {
		// Burst buffer: a (80 B) and b (50 B) do not fit a 100 B pool
		// together; b's starts at 0 and 60 are refused, it runs 120..130.
		// c (200 B) can never fit the pool: dropped.
		name: "burst-buffer pool", policy: "fifo-test", p: greedy{}, pool: 100,
		trace: "job_id,submit_time,duration_s,gpus,bb_bytes\na,0,100,2,80\nb,0,10,1,50\nc,0,10,1,200\n",
		want:  summary{Jobs: 2, AvgJCT: 115, AvgQueue: 60, Makespan: 130, Util: 0.4038, KWh: 0.005, Rejected: 2, Dropped: 1},
	}, {
		// A policy that never starts anything stalls at once; all 3 unfinished.
		name: "stall", trace: threeJobs, policy: "idle-test", p: scripted{},
		want: summary{Unfinished: 3},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Scheduler: SchedulerIdeal, Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 2, GPUType: "t4", BurstBufferBytes: tc.pool}}
			r, err := Run(context.Background(), cfg, mustTrace(t, tc.trace), tc.policy, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(r)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// preemptAt60 starts a on node001 at t=0 and, at t=60, preempts it and
// starts b on both nodes; a restarts when b is done.
func preemptAt60() scripted {
	return scripted{
		0: {{JobID: 1, Start: true, Workers: 2, GPUsPerNode: 2, NodeCount: 1, Placement: []string{"node001"}}},
		60: {
			{JobID: 1, Action: planner.ActionPreempt},
			{JobID: 2, Start: true, Workers: 4, GPUsPerNode: 2, NodeCount: 2},
		},
		120: {{JobID: 1, Start: true, Workers: 2, GPUsPerNode: 2, NodeCount: 1}, {JobID: 3, Start: true, Workers: 1}},
	}
}

// Production honesty: a preempt from "smd" is ignored and counted; the
// same decisions from "tiresias" are applied with the restart penalty.
func TestRunPreemptHonesty(t *testing.T) {
	tests := []struct {
		policy string
		want   summary
	}{{
		// a: 60 s done, preempted, restarts at 120 with 30 s penalty and 40 s
		// left → ends 190 (JCT 190). b: 60..110 (JCT 110). c: 120..130 (JCT 100).
		policy: "tiresias",
		want: summary{Jobs: 3, AvgJCT: 133.3, AvgQueue: 50, Makespan: 190, Util: 0.6184, KWh: 0.01,
			Preempt: 1, Restarts: 1},
	}, {
		// The preempt is ignored, so b does not fit at 60 (rejected start); a
		// ends 100; at 120 a is done (start ignored) and c starts; b never
		// gets another start from the script, so it is left unfinished.
		policy: "smd",
		want: summary{Jobs: 2, AvgJCT: 100, AvgQueue: 45, Makespan: 130, Util: 0.4038, KWh: 0.005,
			Violations: 1, Rejected: 1, Unfinished: 1},
	}}
	for _, tc := range tests {
		t.Run(tc.policy, func(t *testing.T) {
			cfg := Config{Scheduler: SchedulerIdeal, Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 2, GPUType: "t4"}}
			r, err := Run(context.Background(), cfg, mustTrace(t, threeJobs), tc.policy, preemptAt60())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(r)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// Elastic starts and resizes follow the scaling curve: cifar10/2048 runs
// 4723 s on 1 GPU, 1353 s on 4 and 940 s on 6.
func TestRunScalingTruth(t *testing.T) {
	const trace = "job_id,submit_time,duration_s,gpus,model,batch_size,iterations\n" +
		"x,0,940,6,cifar10,2048,3338\n"
	tests := []struct {
		name   string
		policy string
		p      planner.Policy
		want   summary
	}{{
		name: "start on 4 instead of 6", policy: "smd", p: greedy{want: func(*planner.Job) int { return 4 }},
		want: summary{Jobs: 1, AvgJCT: 1353, Makespan: 1353, Util: 0.5, KWh: 0.12, Changed: 1},
	}, {
		// 1 GPU for 600 s (600/4723 done), then 4 GPUs: 30 s penalty plus
		// (1−600/4723)·1353 s → ends at 600+30+1181.1.
		name: "resize 1 to 4 at 600 s", policy: "smd-elastic",
		p: scripted{
			0:   {{JobID: 1, Start: true, Workers: 1, GPUsPerNode: 1, NodeCount: 1}},
			600: {{JobID: 1, Action: planner.ActionResize, Workers: 4, GPUsPerNode: 4, NodeCount: 1}},
		},
		want: summary{Jobs: 1, AvgJCT: 1811.1, Makespan: 1811.1, Util: 0.3758, KWh: 0.131, Changed: 1, Resize: 1, Restarts: 1},
	}}
	sc := readScalingFile(t, "testdata/tiny_scaling.csv")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Scheduler: SchedulerIdeal, Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}}
			r, err := Run(context.Background(), cfg, mustTrace(t, trace), tc.policy, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(r), cmpopts.EquateApprox(0, 0.051)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// The snapshot a policy sees: sorted jobs, running jobs with their GPUs,
// attained service, hints for curve jobs, and node allocation.
func TestSnapshotView(t *testing.T) {
	const trace = "job_id,submit_time,duration_s,gpus,model,batch_size,iterations\n" +
		"x,0,940,6,cifar10,2048,3338\ny,10,100,2,,,\n"
	sc := readScalingFile(t, "testdata/tiny_scaling.csv")
	cfg := Config{Scheduler: SchedulerIdeal, Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}}.withDefaults()
	e := newEngine(cfg, mustTrace(t, trace), "greedy", greedy{})
	e.advance(0)
	e.arrive(0)
	if n, err := e.plan(context.Background(), 0, 0); err != nil || n != 1 {
		t.Fatalf("plan at 0: started %d, %v", n, err)
	}
	e.advance(60)
	e.arrive(60)
	s := e.snapshot(1, 60, nil)
	type view struct {
		ID          int64
		State       planner.JobState
		GPUsPerNode int
		GPUsPerJob  int
		Nodes       int
		NodeList    []string
		Attained    float64
		Comment     string
	}
	var got []view
	for _, j := range s.Jobs {
		got = append(got, view{j.ID, j.State, j.GPUsPerNode, j.GPUsPerJob, j.Nodes, j.NodeList, j.AttainedGPUSeconds, j.Comment})
	}
	want := []view{
		{ID: 1, State: planner.JobRunning, GPUsPerNode: 0, GPUsPerJob: 6, Nodes: 2, NodeList: []string{"node001", "node002"},
			Attained: 360, Comment: "strata: model=cifar10 batch=2048 iters=3338 gpus=1-6"},
		{ID: 2, State: planner.JobPending, GPUsPerNode: 2, Nodes: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if got := []int{s.Nodes[0].AllocGPUs, s.Nodes[1].AllocGPUs}; !cmp.Equal(got, []int{4, 2}) {
		t.Errorf("node allocations = %v, want [4 2]", got)
	}
	if !s.Now.Equal(simEpoch.Add(time.Minute)) || s.ID != "sim-1" {
		t.Errorf("snapshot now/id = %v %s", s.Now, s.ID)
	}
	if _, _, err := planner.ParseHints(s.Jobs[0].Comment); err != nil {
		t.Errorf("simulated hint does not parse: %v", err)
	}
}

// A job running on fewer GPUs than it asked for claims CPUs and memory for
// the GPUs it holds, as the cluster accounts them; otherwise a policy that
// resizes (optimus) sees phantom usage and cannot grow other jobs.
func TestRunningViewResourcesFollowGPUs(t *testing.T) {
	const trace = "job_id,submit_time,duration_s,gpus\nx,0,940,6\n"
	cfg := Config{Scheduler: SchedulerIdeal, Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}}.withDefaults()
	e := newEngine(cfg, mustTrace(t, trace), "greedy", greedy{want: func(*planner.Job) int { return 2 }})
	e.advance(0)
	e.arrive(0)
	if n, err := e.plan(context.Background(), 0, 0); err != nil || n != 1 {
		t.Fatalf("plan at 0: started %d, %v", n, err)
	}
	j := e.snapshot(1, 60, nil).Jobs[0]
	perGPU := cfg.Cluster.CPUsPerNode / cfg.Cluster.GPUsPerNode
	memPerGPU := cfg.Cluster.MemoryMBPerNode / int64(cfg.Cluster.GPUsPerNode)
	if j.GPUs() != 2 || j.CPUs != 2*perGPU || j.MemoryMB != 2*memPerGPU {
		t.Errorf("running view: %d GPUs, %d CPUs, %d MB; want 2 GPUs, %d CPUs, %d MB",
			j.GPUs(), j.CPUs, j.MemoryMB, 2*perGPU, 2*memPerGPU)
	}
}

// TestHistoryPredictor (issue 16.2): with --predictor history the policies
// time jobs by what completed earlier in the run (Helios' estimator), and a
// bad predictor name is refused.
func TestHistoryPredictor(t *testing.T) {
	tr := &Trace{}
	for i := 0; i < 30; i++ {
		d := 600.0
		if i%2 == 1 {
			d = 60
		}
		tr.Jobs = append(tr.Jobs, TraceJob{ID: fmt.Sprint(i + 1), Name: fmt.Sprintf("train-%d", i%2), User: "alice",
			Submit: float64(i * 30), Duration: d, GPUs: 4})
	}
	cs, err := ParseCluster("1x4:t4")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Cluster: cs, Predictor: PredictorHistory}
	r, err := RunNamed(context.Background(), cfg, tr, "sjf")
	if err != nil {
		t.Fatal(err)
	}
	if r.Predictor != PredictorHistory || r.Jobs != 30 {
		t.Errorf("predictor %q, %d jobs; want history, 30", r.Predictor, r.Jobs)
	}
	oracle, err := RunNamed(context.Background(), Config{Cluster: cs}, tr, "sjf")
	if err != nil {
		t.Fatal(err)
	}
	fifo, err := RunNamed(context.Background(), Config{Cluster: cs}, tr, "fifo")
	if err != nil {
		t.Fatal(err)
	}
	// Learned from the first completions, sjf orders the short "train-1"
	// jobs first, as the oracle does: far better than arrival order.
	if !(r.AvgJCT < fifo.AvgJCT) || r.AvgJCT > 1.5*oracle.AvgJCT {
		t.Errorf("avg JCT history %v, oracle %v, fifo %v: want history near the oracle and below fifo", r.AvgJCT, oracle.AvgJCT, fifo.AvgJCT)
	}
	if _, err := RunNamed(context.Background(), Config{Cluster: cs, Predictor: "crystal-ball"}, tr, "sjf"); err == nil {
		t.Error("an unknown predictor was accepted")
	}
}
