package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCluster(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		gpus    int
		wantErr bool
	}{
		{in: "16x4:t4", want: "16x4:t4", gpus: 64},
		{in: "128x8:A100", want: "128x8:a100", gpus: 1024},
		{in: "2x2", want: "2x2", gpus: 4},
		{in: "16*4", wantErr: true},
		{in: "0x4", wantErr: true},
		{in: "4x0:t4", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tc := range tests {
		c, err := ParseCluster(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseCluster(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err == nil && (c.String() != tc.want || c.TotalGPUs() != tc.gpus || c.Partition != "gpu") {
			t.Errorf("ParseCluster(%q) = %s (%d GPUs, partition %q), want %s (%d)", tc.in, c, c.TotalGPUs(), c.Partition, tc.want, tc.gpus)
		}
	}
}

// layout lists the owner of every GPU, node by node.
func layout(c *cluster) [][]int {
	var out [][]int
	for _, n := range c.nodes {
		out = append(out, append([]int(nil), n.owner...))
	}
	return out
}

func TestPlace(t *testing.T) {
	type req struct {
		owner, perNode, count, total int
		prefer                       []string
		ok                           bool
	}
	tests := []struct {
		name string
		reqs []req
		want [][]int
	}{{
		name: "best fit per node: the fullest node that fits",
		reqs: []req{{owner: 1, perNode: 3, count: 1, ok: true}, {owner: 2, perNode: 1, count: 1, ok: true}},
		want: [][]int{{1, 1, 1, 2}, {0, 0, 0, 0}, {0, 0, 0, 0}},
	}, {
		name: "preferred nodes are used when they fit",
		reqs: []req{{owner: 1, perNode: 2, count: 2, prefer: []string{"node003", "node002"}, ok: true}},
		want: [][]int{{0, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}},
	}, {
		name: "preferred nodes that do not fit are ignored",
		reqs: []req{
			{owner: 1, perNode: 4, count: 1, prefer: []string{"node001"}, ok: true},
			{owner: 2, perNode: 2, count: 1, prefer: []string{"node001"}, ok: true},
		},
		want: [][]int{{1, 1, 1, 1}, {2, 2, 0, 0}, {0, 0, 0, 0}},
	}, {
		name: "shape that does not fit changes nothing",
		reqs: []req{{owner: 1, perNode: 4, count: 2, ok: true}, {owner: 2, perNode: 3, count: 1, ok: true}, {owner: 3, perNode: 2, count: 1, ok: false}},
		want: [][]int{{1, 1, 1, 1}, {1, 1, 1, 1}, {2, 2, 2, 0}},
	}, {
		name: "per-job total packs onto one node when possible, else the emptiest nodes",
		reqs: []req{{owner: 1, perNode: 1, count: 1, ok: true}, {owner: 2, total: 4, ok: true}, {owner: 3, total: 6, ok: true}},
		want: [][]int{{1, 3, 3, 0}, {2, 2, 2, 2}, {3, 3, 3, 3}},
	}, {
		name: "per-job total larger than the free GPUs fails",
		reqs: []req{{owner: 1, total: 13, ok: false}},
		want: [][]int{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(ClusterSpec{Nodes: 3, GPUsPerNode: 4})
			for _, r := range tc.reqs {
				if _, ok := c.place(r.owner, r.perNode, r.count, r.total, r.prefer); ok != r.ok {
					t.Errorf("place %+v: ok = %v", r, ok)
				}
			}
			if diff := cmp.Diff(tc.want, layout(c)); diff != "" {
				t.Errorf("layout (-want +got):\n%s", diff)
			}
			free := 0
			for _, n := range c.nodes {
				free += n.free
			}
			if free != c.free {
				t.Errorf("free GPUs %d, nodes say %d", c.free, free)
			}
		})
	}
}
