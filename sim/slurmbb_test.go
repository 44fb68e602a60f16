package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// bbTrace: a and b each stage 60 GiB into a 100 GiB pool at 1 GiB/s; a
// stages 10 GiB out; c has no burst-buffer data.
var bbTrace = "job_id,submit_time,duration_s,gpus,bb_bytes,bb_in_bytes,bb_out_bytes\n" +
	fmt.Sprintf("a,0,100,1,%d,%d,%d\n", 60<<30, 60<<30, 10<<30) +
	fmt.Sprintf("b,1,100,1,%d,,\n", 60<<30) +
	"c,2,50,1,,,\n"

var bbCluster = ClusterSpec{Nodes: 1, GPUsPerNode: 4, GPUType: "t4", BurstBufferBytes: 100 << 30, BurstBufferBps: 1 << 30}

// Hand-computed: the pass at t=0 allocates a's space and starts its
// stage-in (60 s); a starts when its data is in (60) and ends at 160, its
// output is out at 170. b's space does not fit before 170 (it does not
// block c, which starts at the pass at t=3): it stages in 170–230 and runs
// 230–330. The pool holds 60 GiB from 0 to 330: 0.6 of 100 GiB.
func TestSlurmBurstBufferStaging(t *testing.T) {
	got, e := slurmRun(t, Config{Cluster: bbCluster}, bbTrace, nil)
	want := map[string][2]float64{"a": {60, 160}, "b": {230, 330}, "c": {3, 53}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", d)
	}
	r := e.result()
	wantStats := &BBStats{Jobs: 2, PoolUtil: 0.6, PoolWait: 84.5, StageIn: 60, StageWait: 144.5, StagedIdle: 0,
		MaxQueue: 229, MaxQueueBB: 229}
	if d := cmp.Diff(wantStats, r.BurstBuffer); d != "" {
		t.Errorf("burst-buffer statistics (-want +got):\n%s", d)
	}
	if e.cl.bbUsed != 0 {
		t.Errorf("pool still holds %d bytes after the run", e.cl.bbUsed)
	}
}

// Without a bandwidth data moves instantly: a job starts as soon as its
// space is free, and holds it only while it runs.
func TestSlurmBurstBufferInstant(t *testing.T) {
	cl := bbCluster
	cl.BurstBufferBps = 0
	got, _ := slurmRun(t, Config{Cluster: cl}, bbTrace, nil)
	want := map[string][2]float64{"a": {0, 100}, "b": {100, 200}, "c": {3, 53}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", d)
	}
}

// recorder is a policy that plans nothing and keeps what its snapshots
// say about burst buffers.
type recorder struct{ seen []string }

func (r *recorder) Plan(_ context.Context, s *planner.Snapshot) (planner.Plan, error) {
	line := fmt.Sprintf("t=%.0f pools=%d", s.Now.Sub(simEpoch).Seconds(), len(s.BurstBufferPools))
	for _, p := range s.BurstBufferPools {
		line += fmt.Sprintf(" %s used=%dG bw=%gG/s", p.Name, p.UsedBytes>>30, p.BandwidthBps/(1<<30))
	}
	for _, j := range s.Jobs {
		if j.BurstBufferBytes > 0 {
			line += fmt.Sprintf(" job%d:%s", j.ID, j.BurstBufferState)
		}
	}
	r.seen = append(r.seen, line)
	return planner.Plan{SnapshotID: s.ID}, nil
}

// The planner sees each job's burst_buffer_state and the pool's use and
// bandwidth, as the slurm adapter reads them; HideBurstBuffer hides the
// pool (the unaware what-if) while Slurm still enforces it.
func TestSlurmBurstBufferView(t *testing.T) {
	for _, hide := range []bool{false, true} {
		r := &recorder{}
		got, _ := slurmRun(t, Config{Cluster: bbCluster, HideBurstBuffer: hide}, bbTrace, r)
		if got["b"] != [2]float64{230, 330} {
			t.Errorf("hide=%v: b ran %v, want (230, 330) whatever the planner sees", hide, got["b"])
		}
		want := []string{
			"t=0 pools=1 bb used=0G bw=1G/s job1:pending",
			"t=60 pools=1 bb used=60G bw=1G/s job1:staged-in job2:pending", // stage-ins complete before Strata's cycle
			"t=120 pools=1 bb used=60G bw=1G/s job1:running job2:pending",
		}
		if hide {
			want = []string{"t=0 pools=0 job1:", "t=60 pools=0 job1: job2:", "t=120 pools=0 job1: job2:"}
		}
		if d := cmp.Diff(want, r.seen[:3]); d != "" {
			t.Errorf("hide=%v: snapshots (-want +got):\n%s", hide, d)
		}
	}
}

// A job behind a blocked head is never reached by the main pass, but
// backfill gives it an expected start and bb_p_job_try_stage_in stages its
// data in ahead of it. On 2 nodes × 4 GPUs x holds node 1 until 300 (limit
// 600), y node 2 until 250 (limit 300); h (both nodes) blocks the queue,
// reserved from 600; backfill expects d (1 GPU, limit 200) at 300 on node
// 2, so its space is allocated after the first backfill cycle (t=30) and
// its data is in at 60. When y ends the main pass stops at h; the next
// backfill cycle (270) starts d, staged long before; h starts when d ends.
func TestSlurmBurstBufferStagedAheadByBackfill(t *testing.T) {
	fifo := SlurmConfig{Reservations: 1}.withDefaults()
	cl := bbCluster
	cl.Nodes = 2
	trace := "job_id,submit_time,duration_s,gpus,nodes,time_limit_s,bb_bytes\n" +
		"x,0,300,4,1,600,\ny,0,250,4,1,300,\nh,1,100,8,2,200,\n" + fmt.Sprintf("d,2,100,1,1,200,%d\n", 30<<30)
	got, e := slurmRun(t, Config{Cluster: cl, Slurm: fifo}, trace, nil)
	want := map[string][2]float64{"x": {0, 300}, "y": {0, 250}, "d": {270, 370}, "h": {370, 470}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", d)
	}
	if b := e.cl.bb.jobs[3]; b.firstAlloc != 30 || b.firstReady != 60 {
		t.Errorf("d allocated at %v, staged at %v; want 30, 60", b.firstAlloc, b.firstReady)
	}
}

// With a total bandwidth the transfers under way share it. Hand-computed
// (pool 200 GiB, 1 GiB/s per job, 1 GiB/s in all): a (60 GiB in, 10 out)
// stages in alone from 0 at 1 GiB/s; b (60 GiB) is allocated at the pass
// at t=3, when a has 57 GiB left, and both move at 0.5 GiB/s: a is in at
// 3+114=117, b then has 3 GiB left and finishes alone at 120. a runs
// 117–217 and stages its 10 GiB out alone (b runs): space free at 227.
// Without the total, a is in at 60 and b at 63.
func TestSlurmBurstBufferSharedBandwidth(t *testing.T) {
	cl := bbCluster
	cl.BurstBufferBytes, cl.BurstBufferPoolBps = 200<<30, 1<<30
	got, e := slurmRun(t, Config{Cluster: cl}, bbTrace, nil)
	want := map[string][2]float64{"a": {117, 217}, "b": {120, 220}, "c": {3, 53}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(start, end) per job (-want +got):\n%s", d)
	}
	if a := e.cl.bb.jobs[0]; a.freeAt != 227 {
		t.Errorf("a's space is free at %g, want 227", a.freeAt)
	}
	cl.BurstBufferPoolBps = 0
	got, _ = slurmRun(t, Config{Cluster: cl}, bbTrace, nil)
	want = map[string][2]float64{"a": {60, 160}, "b": {63, 163}, "c": {3, 53}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("without a total bandwidth: (start, end) per job (-want +got):\n%s", d)
	}
}
