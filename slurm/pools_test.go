package slurm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestPoolUsage(t *testing.T) {
	pools, err := parsePools([]string{"nvme=1T", "disk=512G"})
	if err != nil {
		t.Fatal(err)
	}
	bb := func(pool, state string, g int64) planner.Job {
		return planner.Job{BurstBufferPool: pool, BurstBufferState: state, BurstBufferBytes: g << 30}
	}
	jobs := []planner.Job{
		bb("nvme", "running", 600),   // held
		bb("nvme", "staged-in", 100), // held while still pending
		bb("nvme", "pending", 300),   // not yet
		bb("disk", "staging-out", 10),
		bb("disk", "complete", 50),
		bb("", "running", 7), // no pool named, two pools declared: unattributed
		{},
	}
	want := []planner.BurstBufferPool{
		{Name: "disk", CapacityBytes: 512 << 30, UsedBytes: 10 << 30},
		{Name: "nvme", CapacityBytes: 1 << 40, UsedBytes: 700 << 30},
	}
	if diff := cmp.Diff(want, poolUsage(pools, jobs)); diff != "" {
		t.Errorf("poolUsage (-want +got):\n%s", diff)
	}
	one, _ := parsePools([]string{"nvme=1T"})
	if got := poolUsage(one, jobs[5:6]); got[0].UsedBytes != 7<<30 {
		t.Errorf("single pool: used %d, want the unnamed job's 7G", got[0].UsedBytes)
	}
}

func TestParsePoolsErrors(t *testing.T) {
	for _, specs := range [][]string{{"nvme"}, {"=1T"}, {"nvme=lots"}, {"a=1G", "a=2G"}} {
		if _, err := parsePools(specs); err == nil {
			t.Errorf("parsePools(%q): want an error", specs)
		}
	}
	if err := (Config{URL: "http://h:1", User: "u", Token: "t", BurstBufferPools: []string{"x"}}).Validate(); err == nil {
		t.Error("Validate accepted a bad pool")
	}
}
