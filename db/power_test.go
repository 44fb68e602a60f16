package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
)

// TestNodeActivity: busy GPUs per host and 10-minute interval come from the
// assignments (an interval counts a GPU a job held at any time in it; open
// ones up to the window's end), and the inventory tells each host's last
// sample, last busy time and whether it is busy now.
func TestNodeActivity(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	s := dbtest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sample := func(host, uuid string, at time.Time) dcgm.Sample {
		return dcgm.Sample{Time: at, Host: host, UUID: uuid, Minor: 0, Source: "replay"}
	}
	if err := s.InsertSamples(ctx, []dcgm.Sample{
		sample("gpu-a", "A0", t0.Add(40*time.Minute)), sample("gpu-a", "A1", t0.Add(40*time.Minute)),
		sample("gpu-b", "B0", t0.Add(15*time.Minute)), sample("gpu-c", "C0", t0.Add(40*time.Minute)),
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAssignments(ctx, "c1", []dcgm.Assignment{
		{Job: 1, Host: "gpu-a", UUID: "A0", From: t0.Add(5 * time.Minute), To: t0.Add(25 * time.Minute)},
		{Job: 2, Host: "gpu-a", UUID: "A1", From: t0.Add(8 * time.Minute), To: t0.Add(10 * time.Minute)}, // ends on a boundary
		{Job: 3, Host: "gpu-a", UUID: "A0", From: t0.Add(28 * time.Minute)},                              // open
		{Job: 4, Host: "gpu-b", UUID: "B0", From: t0.Add(-time.Hour), To: t0.Add(12 * time.Minute)},      // before the window
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.NodeActivity(ctx, t0, t0.Add(40*time.Minute), 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	want := []db.NodeBusy{
		{Host: "gpu-a", Bucket: at(0), BusyGPUs: 2},
		{Host: "gpu-a", Bucket: at(10), BusyGPUs: 1},
		{Host: "gpu-a", Bucket: at(20), BusyGPUs: 1},
		{Host: "gpu-a", Bucket: at(30), BusyGPUs: 1},
		{Host: "gpu-b", Bucket: at(0), BusyGPUs: 1},
		{Host: "gpu-b", Bucket: at(10), BusyGPUs: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("activity (-want +got):\n%s", diff)
	}
	inv, err := s.NodeInventory(ctx, at(40), t0)
	if err != nil {
		t.Fatal(err)
	}
	wantInv := []db.NodeState{
		{Host: "gpu-a", GPUs: 2, LastSeen: at(40), LastBusy: at(40), Busy: true},
		{Host: "gpu-b", GPUs: 1, LastSeen: at(15), LastBusy: at(12)},
		{Host: "gpu-c", GPUs: 1, LastSeen: at(40)},
	}
	if diff := cmp.Diff(wantInv, inv); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
	// Hosts silent since before the window are left out.
	inv, err = s.NodeInventory(ctx, at(40), at(20))
	if err != nil || len(inv) != 2 || inv[0].Host != "gpu-a" || inv[1].Host != "gpu-c" {
		t.Errorf("inventory of hosts seen since 12:20: %+v, %v; want gpu-a and gpu-c", inv, err)
	}
	if _, err := s.NodeActivity(ctx, t0, t0, time.Minute); err == nil {
		t.Error("empty window: want an error")
	}
}
