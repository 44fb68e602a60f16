package slurm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGRES(t *testing.T) {
	tests := []struct {
		in      string
		want    gpuGRES
		wantErr bool
	}{
		// Real strings recorded from the test cluster (node gres / gres_used,
		// job gres_detail).
		{in: "gpu:4", want: gpuGRES{Count: 4}},
		{in: "gpu:0", want: gpuGRES{Count: 0}},
		{in: "gpu:2(IDX:0-1)", want: gpuGRES{Count: 2, Indices: []int{0, 1}}},
		{in: "gpu:a100:4(IDX:0-3)", want: gpuGRES{Count: 4, Type: "a100", Indices: []int{0, 1, 2, 3}}},
		{in: "gpu:a100:0(IDX:N/A)", want: gpuGRES{Count: 0, Type: "a100"}},
		{in: "gpu:a100:2(IDX:2-3)", want: gpuGRES{Count: 2, Type: "a100", Indices: []int{2, 3}}},
		{in: "gpu:A100:4(S:0-1)", want: gpuGRES{Count: 4, Type: "a100"}},
		{in: "gpu:4(IDX:0,2-3),shard:8", want: gpuGRES{Count: 4, Indices: []int{0, 2, 3}}},
		{in: "gpu:a100:2,gpu:v100:2", want: gpuGRES{Count: 4, Type: "a100+v100"}},
		{in: "gpu", want: gpuGRES{Count: 1}},
		{in: "gpu:a100", want: gpuGRES{Count: 1, Type: "a100"}},
		{in: "", want: gpuGRES{}},
		{in: "N/A", want: gpuGRES{}},
		{in: "(null)", want: gpuGRES{}},
		{in: "shard:8", want: gpuGRES{}},
		{in: "gpu:a100:x", wantErr: true},
		{in: "gpu:a:b:c", wantErr: true},
		{in: "gpu:2(IDX:3-1)", wantErr: true},
		{in: "gpu:-2", wantErr: true},
	}
	for _, tc := range tests {
		got, err := parseGRES(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseGRES(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseGRES(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestParseTRESGPU(t *testing.T) {
	tests := []struct {
		in      string
		want    gpuGRES
		wantErr bool
	}{
		{in: "gres/gpu:2", want: gpuGRES{Count: 2}}, // tres_per_node, real
		{in: "gres/gpu:3", want: gpuGRES{Count: 3}}, // tres_per_job of --gpus=3, real
		{in: "gres/gpu=8", want: gpuGRES{Count: 8}}, // tres_alloc_str style
		{in: "gres/gpu:a100:4", want: gpuGRES{Count: 4, Type: "a100"}},
		{in: "gres/gpu:a100=4", want: gpuGRES{Count: 4, Type: "a100"}},
		{in: "gres/gpu", want: gpuGRES{Count: 1}},
		{in: "cpu=4,mem=1000M,gres/gpu:2,gres/shard:1", want: gpuGRES{Count: 2}},
		{in: "gres/gpuxyz:2", want: gpuGRES{}},
		{in: "", want: gpuGRES{}},
		{in: "N/A", want: gpuGRES{}},
		{in: "gres/gpu:many", want: gpuGRES{Count: 1, Type: "many"}},
		{in: "gres/gpu=x", wantErr: true},
	}
	for _, tc := range tests {
		got, err := parseTRESGPU(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseTRESGPU(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseTRESGPU(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestFormatGPUTRESRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		typ string
		n   int
	}{{"", 4}, {"a100", 2}, {"", 1}} {
		s := formatGPUTRES(tc.typ, tc.n)
		g, err := parseTRESGPU(s)
		if err != nil || g.Count != tc.n || g.Type != tc.typ {
			t.Errorf("parseTRESGPU(formatGPUTRES(%q,%d)=%q) = %+v, %v", tc.typ, tc.n, s, g, err)
		}
	}
}

func TestExpandHostlist(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "node[1-2]", want: []string{"node1", "node2"}}, // partition nodes.configured, real
		{in: "node1", want: []string{"node1"}},
		{in: "node1,node2", want: []string{"node1", "node2"}},
		{in: "gpu[01-03,7],cpu5", want: []string{"gpu01", "gpu02", "gpu03", "gpu7", "cpu5"}},
		{in: "r[1-2]-ib", want: []string{"r1-ib", "r2-ib"}},
		{in: "", want: nil},
		{in: "(null)", want: nil},
		{in: "node[2-1]", wantErr: true},
		{in: "node[x]", wantErr: true},
		{in: "node]1[", wantErr: true},
	}
	for _, tc := range tests {
		got, err := expandHostlist(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("expandHostlist(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("expandHostlist(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func FuzzParseGRES(f *testing.F) {
	for _, s := range []string{"gpu:a100:4(IDX:0-3)", "gpu:2(IDX:0,2)", "gres/gpu:a100=4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if g, err := parseGRES(s); err == nil && g.Count < 0 {
			t.Errorf("parseGRES(%q) count %d", s, g.Count)
		}
		if g, err := parseTRESGPU(s); err == nil && g.Count < 0 {
			t.Errorf("parseTRESGPU(%q) count %d", s, g.Count)
		}
	})
}
