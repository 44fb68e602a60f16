package slurm_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/burstbuffer"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// Issue 15.1: where scontrol runs and no pool is declared, a snapshot's
// burst-buffer pools come from `scontrol show burst` (the lua plugin's
// report): the test cluster's pool nvme with its capacity, Slurm's own use
// and its 1 GiB granularity; a declared pool still wins; "none" reads none.
func TestIntegrationPoolsFromScontrol(t *testing.T) {
	cl, _ := integration(t)
	ctx := context.Background()
	scontrol := cl.Command(t, "scontrol")
	direct, err := burstbuffer.ParseShowBurst(cl.MustExec(t, "scontrol", "show", "burst"))
	if err != nil || len(direct) != 1 {
		t.Fatalf("scontrol show burst in the chroot: %v %+v", err, direct)
	}
	// Slurm's use moves while other tests' burst-buffer jobs come and go:
	// checked to be within the pool, then left out of the comparison.
	want := []planner.BurstBufferPool{{Name: "nvme", CapacityBytes: direct[0].Total, GranularityBytes: 1 << 30}}
	for _, tc := range []struct {
		name     string
		scontrol string
		declared []string
		want     []planner.BurstBufferPool
	}{
		{"from scontrol", scontrol, nil, want},
		{"declared wins", scontrol, []string{"nvme=2T"}, []planner.BurstBufferPool{{Name: "nvme", CapacityBytes: 2 << 40}}},
		{"none", "none", nil, nil},
	} {
		cfg := cl.Config
		cfg.Scontrol, cfg.BurstBufferPools = tc.scontrol, tc.declared
		c, err := slurm.New(ctx, cfg, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := s.BurstBufferPools
		for i := range got {
			if got[i].UsedBytes < 0 || got[i].UsedBytes > got[i].CapacityBytes {
				t.Errorf("%s: pool %s uses %d of %d bytes", tc.name, got[i].Name, got[i].UsedBytes, got[i].CapacityBytes)
			}
			got[i].UsedBytes = 0
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: pools (-want +got):\n%s", tc.name, diff)
		}
	}
}
