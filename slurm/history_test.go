package slurm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGPUsAllocated(t *testing.T) {
	for _, tc := range []struct {
		name string
		tres []tresWireV0042
		want int
	}{
		{"none", nil, 0},
		{"untyped", []tresWireV0042{{Type: "cpu", Count: 4}, {Type: "gres", Name: "gpu", Count: 2}}, 2},
		{"untyped and typed: the untyped total", []tresWireV0042{{Type: "gres", Name: "gpu", Count: 4},
			{Type: "gres", Name: "gpu:a100", Count: 4}}, 4},
		{"typed only", []tresWireV0042{{Type: "gres", Name: "gpu:a100", Count: 2}, {Type: "gres", Name: "gpu:h100", Count: 1}}, 3},
		{"other gres", []tresWireV0042{{Type: "gres", Name: "gpumem", Count: 80}, {Type: "gres", Name: "nic", Count: 1}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, gpusAllocated(tc.tres)); diff != "" {
				t.Errorf("gpusAllocated (-want +got):\n%s", diff)
			}
		})
	}
}
