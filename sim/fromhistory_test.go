package sim

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/planner/history"
)

func TestSiteCluster(t *testing.T) {
	node := func(name string, gpus int, typ string, parts ...string) SiteNode {
		return SiteNode{Name: name, GPUs: gpus, GPUType: typ, CPUs: 16, MemoryMB: 64000, Partitions: parts}
	}
	for _, tc := range []struct {
		name  string
		nodes []SiteNode
		want  Site
	}{{
		// The test bed: gpu over both nodes, gpua and gpub one each.
		name:  "overlapping partitions become islands",
		nodes: []SiteNode{node("node1", 4, "", "gpu", "gpua"), node("node2", 4, "", "gpu", "gpub")},
		want: Site{Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, CPUsPerNode: 16, MemoryMBPerNode: 64000, Partition: "gpu",
			Parts: []PartSpec{{Name: "gpua", Nodes: 1}, {Name: "gpub", Nodes: 1}}},
			Islands: map[string][]string{"gpu": {"gpua", "gpub"}, "gpua": {"gpua"}, "gpub": {"gpub"}}},
	}, {
		name:  "one partition",
		nodes: []SiteNode{node("a1", 8, "A100", "batch"), node("a2", 8, "a100", "batch")},
		want: Site{Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 8, GPUType: "a100", CPUsPerNode: 16, MemoryMBPerNode: 64000,
			Partition: "batch"}, Islands: map[string][]string{"batch": {"batch"}}},
	}, {
		name: "unnamed islands, other sizes and CPU nodes left out",
		nodes: []SiteNode{node("c1", 0, "", "cpu"), node("g1", 4, "t4", "short", "long"), node("g2", 4, "t4", "long"),
			node("g3", 4, "v100", "long"), node("big", 8, "a100", "long")},
		want: Site{Cluster: ClusterSpec{Nodes: 3, GPUsPerNode: 4, GPUType: "t4", CPUsPerNode: 16, MemoryMBPerNode: 64000,
			Partition: "gpu", Parts: []PartSpec{{Name: "short", Nodes: 1, GPUType: "t4"}, {Name: "island2", Nodes: 1, GPUType: "t4"},
				{Name: "island3", Nodes: 1, GPUType: "v100"}}},
			Islands: map[string][]string{"short": {"short"}, "long": {"short", "island2", "island3"}},
			LeftOut: []string{"c1 (no GPUs)", "big (8 GPUs, the model's nodes have 4)"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SiteCluster(tc.nodes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("SiteCluster (-want +got):\n%s", d)
			}
			if _, err := ParseCluster(got.Cluster.String()); err != nil {
				t.Errorf("the cluster does not parse back: %v", err)
			}
		})
	}
	if _, err := SiteCluster([]SiteNode{node("c1", 0, "", "cpu")}); err == nil {
		t.Error("SiteCluster without GPU nodes: no error")
	}
}

func TestFromHistory(t *testing.T) {
	site, err := SiteCluster([]SiteNode{{Name: "node1", GPUs: 4, CPUs: 16, MemoryMB: 64000, Partitions: []string{"gpu", "gpua"}},
		{Name: "node2", GPUs: 4, CPUs: 16, MemoryMB: 64000, Partitions: []string{"gpu", "gpub"}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	jobs := []HistoryJob{
		{ID: 7, User: "bob", Name: "b", Partition: "gpub", GPUs: 2, Nodes: 1, TimeLimit: time.Hour,
			Submit: at(30), Start: at(100), End: at(700), State: "TIMEOUT"},
		{ID: 5, User: "alice", Name: "a", Partition: "gpu", GPUs: 4, Nodes: 1, TimeLimit: 10 * time.Minute,
			Submit: at(0), Start: at(5), End: at(125), State: "COMPLETED",
			Comment: "strata: model=resnet50 batch=64 iters=2000 gpus=1-4"},
		{ID: 6, User: "alice", Partition: "gpua", GPUs: 1, Submit: at(10), Eligible: at(60), Start: at(61), End: at(71),
			State: "FAILED", Comment: "strata: gpus=1-2 deadline=2026-11-20 09:00 weight=3"},
		{ID: 8, User: "bob", Partition: "gpu", GPUs: 0, Submit: at(1), Start: at(2), End: at(3)},
		{ID: 9, User: "bob", Partition: "debug", GPUs: 1, Submit: at(1), Start: at(2), End: at(3)},
		{ID: 10, User: "bob", Partition: "gpu", GPUs: 1, Submit: at(1), Start: at(2), End: at(2)},
		{ID: 11, User: "bob", Partition: "gpu", GPUs: 1, Submit: at(2), Start: at(3), End: at(9), Comment: "strata: gpus=9-1"},
	}
	got := FromHistory(jobs, site)
	want := []TraceJob{
		{ID: "5", Submit: 0, Duration: 120, GPUs: 4, Nodes: 1, User: "alice", Name: "a", TimeLimit: 600, Partition: "gpua,gpub",
			Hint: "strata: model=resnet50 batch=64 iters=2000 gpus=1-4", Model: "resnet50", BatchSize: 64, Iterations: 2000},
		{ID: "11", Submit: 2, Duration: 6, GPUs: 1, User: "bob", Partition: "gpua,gpub", Hint: "strata: gpus=9-1"},
		{ID: "7", Submit: 30, Duration: 600, GPUs: 2, Nodes: 1, User: "bob", Name: "b", TimeLimit: 3600, Partition: "gpub"},
		// Arrives at its --begin; its deadline moves to the trace's column.
		{ID: "6", Submit: 60, Duration: 10, GPUs: 1, User: "alice", Partition: "gpua", Hint: "strata: gpus=1-2",
			Deadline: 3600, TardinessWeight: 3},
	}
	if d := cmp.Diff(want, got.Trace.Jobs, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"no GPUs": 1, "partition not modelled": 1, "never ran": 1}, got.LeftOut); d != "" {
		t.Errorf("left out (-want +got):\n%s", d)
	}
	var ids []int64
	for _, j := range got.Source {
		ids = append(ids, j.ID)
	}
	if d := cmp.Diff([]int64{5, 11, 7, 6}, ids); d != "" || !got.Start.Equal(t0) || got.Trace.CPUOnly != 1 {
		t.Errorf("sources %v (-want +got %s), start %v, cpu-only %d", ids, d, got.Start, got.Trace.CPUOnly)
	}

	// The trace file keeps the partitions and hints.
	var b bytes.Buffer
	if err := WriteTrace(&b, got.Trace); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrace(&b, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got.Trace.Jobs, back.Jobs, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("written and read back (-want +got):\n%s", d)
	}
}

// A job's own partition binds where it runs: two full-node jobs of
// partition gpua share its one node (the second waits for the first),
// while the same jobs listing no partition take both islands at once.
func TestTracePartitionBindsPlacement(t *testing.T) {
	spec, err := ParseCluster("2x4,parts=gpua:1/gpub:1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		part       string
		wantSecond float64 // the second job's start
	}{{"gpua", 600}, {"", 0}} {
		t.Run("partition "+tc.part, func(t *testing.T) {
			tr := &Trace{Jobs: []TraceJob{{ID: "1", Duration: 600, GPUs: 4, TimeLimit: 900, Partition: tc.part},
				{ID: "2", Duration: 600, GPUs: 4, TimeLimit: 900, Partition: tc.part}}}
			r, err := RunNamed(context.Background(), Config{Cluster: spec, JobRows: true}, tr, PolicySlurm)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.JobRows) != 2 || r.JobRows[1].Start == nil {
				t.Fatalf("rows %+v", r.JobRows)
			}
			// Slurm's passes run every few seconds: within a minute.
			if s := *r.JobRows[1].Start; s < tc.wantSecond || s > tc.wantSecond+60 {
				t.Errorf("second job started at %v s, want %v s", s, tc.wantSecond)
			}
		})
	}
}

// A job's own hint is its comment, as written: smd may then run it on
// fewer GPUs than it asked (gpus=1-4), which a job without a hint never is.
func TestTraceHintIsTheComment(t *testing.T) {
	spec, err := ParseCluster("1x4")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(Config{Cluster: spec}.withDefaults(), &Trace{Jobs: []TraceJob{
		{ID: "1", Duration: 600, GPUs: 4, Hint: "strata: model=resnet50 batch=64 iters=2000 gpus=1-4"},
		{ID: "2", Duration: 600, GPUs: 4}}}, "smd", nil)
	got := []string{e.jobs[0].pj.Comment, e.jobs[1].pj.Comment}
	if d := cmp.Diff([]string{"strata: model=resnet50 batch=64 iters=2000 gpus=1-4", ""}, got); d != "" {
		t.Errorf("comments (-want +got):\n%s", d)
	}
	if e.jobs[0].minGPUs != 1 || e.jobs[1].minGPUs != 4 {
		t.Errorf("min GPUs %d, %d; want 1, 4", e.jobs[0].minGPUs, e.jobs[1].minGPUs)
	}
}

// With HistoryPrior the history predictor knows jobs from before the
// trace: smd then runs the short job (by its name's past runs) before the
// long one that arrived first; without it, it has nothing to go by and
// the first come first.
func TestHistoryPriorTimesJobsFromTheStart(t *testing.T) {
	spec, err := ParseCluster("1x1")
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{Jobs: []TraceJob{
		{ID: "blocker", Duration: 600, GPUs: 1, TimeLimit: 700, User: "u", Name: "blocker"},
		{ID: "long", Submit: 10, Duration: 5000, GPUs: 1, TimeLimit: 6000, User: "u", Name: "long"},
		{ID: "short", Submit: 20, Duration: 60, GPUs: 1, TimeLimit: 6000, User: "u", Name: "short"}}}
	var prior []history.Record
	for range 3 {
		prior = append(prior, history.Record{User: "u", Name: "long", Partition: "gpu", GPUs: 1, Duration: 5000 * time.Second},
			history.Record{User: "u", Name: "short", Partition: "gpu", GPUs: 1, Duration: 60 * time.Second})
	}
	for _, tc := range []struct {
		prior []history.Record
		first string
	}{{prior, "short"}, {nil, "long"}} {
		cfg := Config{Cluster: spec, Predictor: PredictorHistory, JobRows: true, HistoryPrior: tc.prior}
		r, err := RunNamed(context.Background(), cfg, tr, "smd")
		if err != nil {
			t.Fatal(err)
		}
		start := map[string]float64{}
		for _, row := range r.JobRows {
			if row.Start != nil {
				start[row.ID] = *row.Start
			}
		}
		if got := map[bool]string{true: "short", false: "long"}[start["short"] < start["long"]]; got != tc.first || len(start) != 3 {
			t.Errorf("prior of %d runs: %s started first (starts %v), want %s", len(tc.prior), got, start, tc.first)
		}
	}
}
