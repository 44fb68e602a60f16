package planner_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-hpc/strata/planner"
	pt "github.com/strata-hpc/strata/planner/plannertest"
)

// stableOracle is a planner.StablePredictor: its answer depends on the
// job's ID and the GPUs asked only, as the simulator's oracle.
type stableOracle struct{}

func (stableOracle) Predict(j *planner.Job, gpus int) (time.Duration, bool) {
	return time.Duration(20+j.ID%97*7) * time.Minute * 8 / time.Duration(max(1, gpus)), true
}

func (stableOracle) Stable() bool { return true }

// randJob is one job of randomQueue's model of a cluster.
type randJob struct {
	id        int64
	gpus      int
	comment   string
	limit     time.Duration
	part      string
	submitted time.Time
	running   bool
	node      string
	started   time.Time
	claim     planner.Claim
	restarts  int
	attained  float64
	signalled time.Time
	dup       bool // the snapshot holds the ID twice (the copy asks for 1 GPU)
}

// randComments are the hints randomQueue's jobs carry.
var randComments = []string{
	"",
	"old job notes",
	"strata: model=resnet50 batch=64 epochs=2 samples=1281167 gpus=1-8",
	"strata: model=cifar10 batch=2048 iters=3000 gpus=1-4",
	"strata: model=bert batch=384 iters=2000 gpus=2",
	"strata: params=350M flops=2T batch=32 iters=4000 gpus=1-8",
	"strata: model=imagenet batch=3200 iters=500 gpus=4-16 preempt=yes",
	"strata: gpus=1-4 rewrite=no",
	"strata: model=vgg16 batch=64 epochs=1 samples=1281167 gpus=1-8 arch=ps ps=auto",
}

// randomQueue is a random walk of a small cluster's queue: at each step
// time passes, running jobs end, pending jobs start, new ones arrive, and
// jobs change what the memo keys and caches on (hint, time limit, GPU
// request, partition, the user's record, restarts and attained service,
// a signal), a job ID is listed twice, a node is drained or resumed.
type randomQueue struct {
	rng     *rand.Rand
	now     time.Time
	jobs    []*randJob
	next    int64
	drained map[string]bool
}

var randNodes = map[string][]string{
	"gpu":   {"gpu0001", "gpu0002", "gpu0003", "gpu0004", "gpu0005", "gpu0006"},
	"small": {"sm0001", "sm0002", "sm0003"},
}

func nodeGPUs(node string) int {
	if node[:2] == "sm" {
		return 4
	}
	return 8
}

func (q *randomQueue) used(node string) int {
	n := 0
	for _, j := range q.jobs {
		if j.running && j.node == node {
			n += j.gpus
		}
	}
	return n
}

func (q *randomQueue) newJob() *randJob {
	q.next++
	part := []string{"gpu", "gpu", "small", ""}[q.rng.IntN(4)]
	gpus := 1 << q.rng.IntN(3)
	if part == "small" {
		gpus = min(gpus, 4)
	}
	return &randJob{id: q.next, gpus: gpus, comment: randComments[q.rng.IntN(len(randComments))],
		limit: time.Duration(1+q.rng.IntN(48)) * time.Hour, part: part, submitted: q.now}
}

// step moves the queue on.
func (q *randomQueue) step() {
	q.now = q.now.Add(time.Duration(1+q.rng.IntN(90)) * time.Minute)
	var kept []*randJob
	for _, j := range q.jobs {
		switch r := q.rng.Float64(); {
		case j.running && r < 0.15, !j.running && r < 0.05: // ended, or left the queue
			continue
		case !j.running && r < 0.3:
			q.start(j)
		}
		kept = append(kept, j)
	}
	q.jobs = kept
	for range q.rng.IntN(5) {
		q.jobs = append(q.jobs, q.newJob())
	}
	for _, j := range q.jobs {
		if q.rng.Float64() < 0.15 {
			q.edit(j)
		}
	}
	if q.rng.Float64() < 0.1 {
		n := randNodes["gpu"][q.rng.IntN(6)]
		if q.used(n) == 0 {
			q.drained[n] = !q.drained[n]
		}
	}
}

// start places a pending job on a node with room, if one has.
func (q *randomQueue) start(j *randJob) {
	part := j.part
	if part == "" {
		part = "gpu"
	}
	for _, n := range randNodes[part] {
		if !q.drained[n] && q.used(n)+j.gpus <= nodeGPUs(n) {
			j.running, j.node, j.started, j.dup = true, n, q.now, false
			return
		}
	}
}

// edit changes one thing about the job.
func (q *randomQueue) edit(j *randJob) {
	switch q.rng.IntN(8) {
	case 0:
		j.comment = randComments[q.rng.IntN(len(randComments))]
	case 1:
		j.limit = time.Duration(1+q.rng.IntN(48)) * time.Hour
	case 2:
		if !j.running {
			j.gpus = 1 << q.rng.IntN(3)
			if j.part == "small" {
				j.gpus = min(j.gpus, 4)
			}
		}
	case 3:
		if !j.running {
			j.part = []string{"gpu", "small", ""}[q.rng.IntN(3)]
			if j.part == "small" {
				j.gpus = min(j.gpus, 4)
			}
		}
	case 4:
		j.claim = []planner.Claim{{}, {Factor: 1.5}, {Factor: 3, Distrust: true}}[q.rng.IntN(3)]
	case 5:
		if j.running {
			j.restarts++
			j.attained += float64(j.gpus) * 1800
		}
	case 6:
		if j.running && j.signalled.IsZero() {
			j.signalled = q.now
		}
	default:
		j.dup = !j.running && !j.dup
	}
}

// snapshot is the queue as a planner snapshot.
func (q *randomQueue) snapshot(k int) *planner.Snapshot {
	b := pt.Cluster(fmt.Sprintf("random-%d", k), q.now).Partition("gpu", true).Partition("small", false).
		Nodes("gpu", 6, 8, 64, 512*1024, "gpu", "a100").Nodes("sm", 3, 4, 32, 128*1024, "small", "t4")
	for _, j := range q.jobs {
		if j.running {
			b.Running(j.id, j.gpus, j.node, j.started, pt.InPartition(j.part), pt.TimeLimit(j.limit))
			continue
		}
		b.Pending(j.id, j.gpus, j.comment, pt.Submitted(j.submitted), pt.TimeLimit(j.limit), pt.InPartition(j.part))
		if j.dup {
			b.Pending(j.id, 1, j.comment, pt.Submitted(j.submitted), pt.TimeLimit(j.limit), pt.InPartition(j.part))
		}
	}
	for n, d := range q.drained {
		if d {
			b.NodeState(n, "IDLE", "DRAIN")
		}
	}
	s := b.Build()
	byID := map[int64]*randJob{}
	for _, j := range q.jobs {
		byID[j.id] = j
	}
	for i := range s.Jobs {
		sj, j := &s.Jobs[i], byID[s.Jobs[i].ID]
		sj.Comment, sj.Claim, sj.Requeue = j.comment, j.claim, true
		if sj.State == planner.JobRunning {
			sj.Restarts, sj.AttainedGPUSeconds, sj.Signalled = j.restarts, j.attained, j.signalled
		}
	}
	return s
}

// TestMemoIsTransparentRandom: over random walks of a queue, a policy
// that keeps its memo from plan to plan (with a StablePredictor, whose
// durations it keeps too) plans exactly as a fresh policy does on each
// snapshot. A cached answer kept past a change of what it depends on
// shows as a difference.
func TestMemoIsTransparentRandom(t *testing.T) {
	for _, name := range []string{"smd", "smd-elastic", "andreas", "fifo", "sjf"} {
		for seed := range uint64(6) {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				o := planner.Options{Predictor: stableOracle{}}
				kept, err := planner.NewPolicy(name, o)
				if err != nil {
					t.Fatal(err)
				}
				q := &randomQueue{rng: rand.New(rand.NewPCG(seed, 35)), now: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC),
					drained: map[string]bool{}}
				for k := range 40 {
					q.step()
					s := q.snapshot(k)
					want := freshPlan(t, name, o, s)
					got, err := kept.Plan(context.Background(), clone(s))
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("step %d: plan with a carried-over memo differs (-fresh +kept):\n%s", k, diff)
					}
				}
			})
		}
	}
}

// clone copies the snapshot's jobs and nodes, so that the kept policy
// never sees the fresh one's snapshot.
func clone(s *planner.Snapshot) *planner.Snapshot {
	c := *s
	c.Jobs = slices.Clone(s.Jobs)
	c.Nodes = slices.Clone(s.Nodes)
	return &c
}
