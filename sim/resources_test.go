package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestParseClusterSettings(t *testing.T) {
	tests := []struct {
		in      string
		want    ClusterSpec
		str     string
		wantErr bool
	}{
		{in: "16x4:t4", str: "16x4:t4",
			want: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4", CPUsPerNode: 48, MemoryMBPerNode: 196608, Partition: "gpu"}},
		{in: "16x4:t4,cpus=32,mem=128G,bb=100T,bbbw=2G/s", str: "16x4:t4,cpus=32,mem=128G,bb=100T,bbbw=2G/s",
			want: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4", CPUsPerNode: 32, MemoryMBPerNode: 131072,
				Partition: "gpu", BurstBufferBytes: 100 << 40, BurstBufferBps: 2 << 30}},
		// Slurm's units: a bare memory size is MB; settings in any order.
		{in: "2x8, mem=64000 ,cpus=64", str: "2x8,cpus=64,mem=64000M",
			want: ClusterSpec{Nodes: 2, GPUsPerNode: 8, CPUsPerNode: 64, MemoryMBPerNode: 64000, Partition: "gpu"}},
		// The defaults are not repeated.
		{in: "2x2,cpus=24,mem=96G,bbbw=500M", str: "2x2,bbbw=500M/s",
			want: ClusterSpec{Nodes: 2, GPUsPerNode: 2, CPUsPerNode: 24, MemoryMBPerNode: 98304, Partition: "gpu", BurstBufferBps: 500 << 20}},
		{in: "16x4:t4,parts=slow:8/fast:8:V100", str: "16x4:t4,parts=slow:8/fast:8:v100",
			want: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4", CPUsPerNode: 48, MemoryMBPerNode: 196608, Partition: "gpu",
				Parts: []PartSpec{{Name: "slow", Nodes: 8}, {Name: "fast", Nodes: 8, GPUType: "v100"}}}},
		{in: "4x4,bb=1T,bbbw=1G/s,bbpoolbw=4G", str: "4x4,bb=1T,bbbw=1G/s,bbpoolbw=4G/s",
			want: ClusterSpec{Nodes: 4, GPUsPerNode: 4, CPUsPerNode: 48, MemoryMBPerNode: 196608, Partition: "gpu",
				BurstBufferBytes: 1 << 40, BurstBufferBps: 1 << 30, BurstBufferPoolBps: 4 << 30}},
		{in: "4x4,bbpoolbw=0", wantErr: true},
		{in: "16x4:t4,parts=a:8/b:7", wantErr: true},   // 15 nodes of 16
		{in: "16x4:t4,parts=a:16", wantErr: true},      // one partition
		{in: "16x4:t4,parts=a:8/a:8", wantErr: true},   // twice
		{in: "16x4:t4,parts=a:8/b:0:x", wantErr: true}, // no nodes
		{in: "16x4:t4,gpus=3", wantErr: true},
		{in: "16x4:t4,cpus=0", wantErr: true},
		{in: "16x4:t4,cpus", wantErr: true},
		{in: "16x4:t4,mem=lots", wantErr: true},
		{in: "16x4:t4,bb=0", wantErr: true},
		{in: "16x4:t4,bb=1T,bb=2T", wantErr: true},
		{in: "16x4:t4,", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseCluster(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseCluster(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseCluster(%q) (-want +got):\n%s", tc.in, d)
		}
		if got.String() != tc.str {
			t.Errorf("ParseCluster(%q).String() = %q, want %q", tc.in, got.String(), tc.str)
		}
		if back, err := ParseCluster(got.String()); err != nil || !cmp.Equal(back, got) {
			t.Errorf("ParseCluster(%q) = %+v, %v; want the spec back", got.String(), back, err)
		}
	}
}

// Placement counts CPUs and memory per node: a node whose GPUs are free but
// whose memory is taken does not hold the job.
func TestPlaceCPUAndMemory(t *testing.T) {
	type req struct {
		owner, perNode, count, total int
		ok                           bool
	}
	// need per GPU: owner 1 = 10 CPUs, 40 GB; owner 2 = 2 CPUs, 10 GB;
	// owner 3 = 1 CPU, 100 GB; owner 4 = 1 CPU, 60 GB.
	per := map[int][2]int64{1: {10, 40000}, 2: {2, 10000}, 3: {1, 100000}, 4: {1, 60000}}
	tests := []struct {
		name string
		reqs []req
		want [][]int
	}{{
		name: "memory taken: the job goes to the other node",
		reqs: []req{{owner: 3, perNode: 1, count: 1, ok: true}, {owner: 3, perNode: 1, count: 1, ok: true}},
		want: [][]int{{3, 0, 0, 0}, {3, 0, 0, 0}},
	}, {
		name: "CPUs taken: a shape whose GPUs are free does not fit",
		reqs: []req{{owner: 1, perNode: 2, count: 2, ok: true}, {owner: 1, perNode: 1, count: 1, ok: false}, {owner: 2, perNode: 2, count: 2, ok: true}},
		want: [][]int{{1, 1, 2, 2}, {1, 1, 2, 2}},
	}, {
		name: "a per-job total takes what each node's memory allows",
		reqs: []req{{owner: 4, total: 5, ok: true}},
		want: [][]int{{4, 4, 4, 0}, {4, 4, 0, 0}},
	}, {
		name: "a per-job total that no node set can hold fails and takes nothing",
		reqs: []req{{owner: 4, total: 5, ok: true}, {owner: 4, total: 2, ok: false}},
		want: [][]int{{4, 4, 4, 0}, {4, 4, 0, 0}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(ClusterSpec{Nodes: 2, GPUsPerNode: 4, CPUsPerNode: 24, MemoryMBPerNode: 192000})
			c.need = func(owner, g int) (int, int64) { return int(per[owner][0]) * g, per[owner][1] * int64(g) }
			for _, r := range tc.reqs {
				if _, ok := c.place(r.owner, r.perNode, r.count, r.total, nil); ok != r.ok {
					t.Errorf("place %+v: ok = %v", r, ok)
				}
			}
			if d := cmp.Diff(tc.want, layout(c)); d != "" {
				t.Errorf("layout (-want +got):\n%s", d)
			}
		})
	}
}

// Memory binds in Slurm mode for Slurm alone and for smd: two 1-GPU jobs
// that each need 120 GB of a 192 GB node run one after the other although
// GPUs are free; a job that needs more memory than any node is dropped.
func TestMemoryBindsInSlurmMode(t *testing.T) {
	trace := "job_id,submit_time,duration_s,gpus,cpus,memory_mib\n" +
		"a,0,100,1,4,120000\nb,1,100,1,4,120000\nc,2,50,1,4,30000\nhuge,3,10,1,4,300000\n"
	want := map[string][2]float64{"a": {0, 100}, "b": {100, 200}, "c": {2, 52}, "huge": {-1, 0}}
	cl := ClusterSpec{Nodes: 1, GPUsPerNode: 4, CPUsPerNode: 48, MemoryMBPerNode: 192000}
	smd, err := planner.NewPolicy("smd", planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []planner.Policy{nil, smd} {
		got, e := slurmRun(t, Config{Cluster: cl}, trace, p)
		// Slurm's passes and Strata's cycle shift starts by a few seconds;
		// only the order and the overlap matter here.
		if got["b"][0] < got["a"][1] || got["c"][0] >= got["a"][1] || got["huge"] != want["huge"] {
			t.Errorf("policy %v: (start, end) = %v, want b after a, c beside a, huge never", p != nil, got)
		}
		if e.res.Dropped != 1 || e.res.RejectedStarts != 0 {
			t.Errorf("policy %v: dropped %d, rejected %d; want 1, 0", p != nil, e.res.Dropped, e.res.RejectedStarts)
		}
	}
}

func TestReadTraceResourceColumns(t *testing.T) {
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,cpus,memory_mib,bb_bytes,bb_in_bytes,bb_out_bytes\n"+
		"a,0,10,2,7.5,1024.5,300,200,10\nb,1,10,1,,,,,\n")
	got := [][5]int64{}
	for _, j := range tr.Jobs {
		got = append(got, [5]int64{int64(j.CPUs), j.MemoryMB, j.BBBytes, j.BBInBytes, j.BBOutBytes})
	}
	if d := cmp.Diff([][5]int64{{8, 1025, 300, 200, 10}, {0, 0, 0, 0, 0}}, got); d != "" {
		t.Errorf("cpus, memory_mib, bb_bytes, bb_in_bytes, bb_out_bytes (-want +got):\n%s", d)
	}
}
