package collect

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

func TestSlurmMapperKeepsOnlyRunningGPUJobs(t *testing.T) {
	snap := &planner.Snapshot{Jobs: []planner.Job{
		{ID: 7, State: planner.JobRunning, GPUAlloc: []planner.GPUAllocation{{Node: "n1", Indices: []int{2, 3}}}},
		{ID: 8, State: planner.JobPending, GPUsPerNode: 2},
		{ID: 9, State: planner.JobRunning}, // CPU-only
		{ID: 10, State: planner.JobRunning, GPUAlloc: []planner.GPUAllocation{{Node: "n1", Indices: []int{0}}, {Node: "n2", Indices: []int{1}}}},
	}}
	m := &slurmMapper{snapshot: func(context.Context) (*planner.Snapshot, error) { return snap, nil }}
	got, err := m.Mapping(context.Background(), time.Time{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []dcgm.JobGPU{{Job: 10, Host: "n1", Index: 0}, {Job: 7, Host: "n1", Index: 2}, {Job: 7, Host: "n1", Index: 3}, {Job: 10, Host: "n2", Index: 1}}
	if diff := cmp.Diff(want, got.GPUs, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("GPUs (-want +got):\n%s", diff)
	}
	if got.Kind != dcgm.ByMinor {
		t.Errorf("kind = %v, want ByMinor (Slurm's IDX is the device minor order)", got.Kind)
	}
	var ids []int64
	for _, j := range got.Jobs {
		ids = append(ids, j.ID)
	}
	if !slices.Equal(ids, []int64{7, 10}) {
		t.Errorf("jobs = %v, want [7 10]", ids)
	}
}

// TestIntegrationSlurmMapperSharedNode: two jobs share one node of the real
// test cluster; the mapping gives each exactly the GPU indices Slurm gave it.
func TestIntegrationSlurmMapperSharedNode(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster")
	}
	cl := slurmtest.Connect(t)
	ctx := context.Background()
	client, err := slurm.New(ctx, cl.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	a := cl.Sbatch(t, "--gres=gpu:1", "-w", "node2", "-J", "map-a", "--wrap=sleep 60")
	b := cl.Sbatch(t, "--gres=gpu:2", "-w", "node2", "-J", "map-b", "--wrap=sleep 60")
	cl.WaitState(t, a, "RUNNING", 180*time.Second)
	cl.WaitState(t, b, "RUNNING", 180*time.Second)

	got, err := (&slurmMapper{snapshot: client.Snapshot}).Mapping(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	held := map[int64][]int{}
	for _, g := range got.GPUs {
		if g.Job == a || g.Job == b {
			if g.Host != "node2" {
				t.Errorf("job %d GPU on %s, want node2", g.Job, g.Host)
			}
			held[g.Job] = append(held[g.Job], g.Index)
		}
	}
	if len(held[a]) != 1 || len(held[b]) != 2 {
		t.Fatalf("held = %v, want 1 GPU for job %d and 2 for job %d", held, a, b)
	}
	for _, i := range held[a] {
		if slices.Contains(held[b], i) {
			t.Errorf("GPU index %d attributed to both jobs: %v", i, held)
		}
	}
	// Slurm's own view must agree: scontrol -d shows the GRES indices per job.
	for id, idx := range held {
		detail := cl.MustExec(t, "scontrol", "-d", "show", "job", strconv.FormatInt(id, 10))
		want := fmt.Sprintf("GRES=gpu:%d(IDX:%s)", len(idx), idxList(idx))
		if !strings.Contains(detail, want) {
			t.Errorf("scontrol -d show job %d lacks %q:\n%s", id, want, detail)
		}
	}
}

// idxList formats sorted indices as Slurm does: "0", "1-2", "0,2".
func idxList(idx []int) string {
	slices.Sort(idx)
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		} else {
			parts = append(parts, strconv.Itoa(idx[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// The GPU jobs slurmctld lists as ended are reported once each, with their
// end, so the job records say how every run ended (issue 33: before, a
// collector reading Slurm never stored an end, and the site's model never
// learned); CPU jobs are not, and a run slurmctld forgot may come again.
func TestSlurmMapperReportsEndedRunsOnce(t *testing.T) {
	end := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	ended := []planner.Job{
		{ID: 7, State: planner.JobCompleted, GPUsPerNode: 2, StartTime: end.Add(-time.Hour), EndTime: end},
		{ID: 8, State: "TIMEOUT", GPUsPerNode: 1, StartTime: end.Add(-2 * time.Hour), EndTime: end.Add(time.Minute)},
		{ID: 9, State: planner.JobCompleted, StartTime: end.Add(-time.Hour), EndTime: end}, // CPU-only
	}
	snap := &planner.Snapshot{Ended: ended}
	m := &slurmMapper{snapshot: func(context.Context) (*planner.Snapshot, error) { return snap, nil }}
	reported := func() map[int64]time.Time {
		got, err := m.Mapping(context.Background(), time.Time{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Jobs) != len(got.Ends) {
			t.Errorf("jobs %v with ends %v: want one end per job", got.Jobs, got.Ends)
		}
		return got.Ends
	}
	if d := cmp.Diff(map[int64]time.Time{7: end, 8: end.Add(time.Minute)}, reported()); d != "" {
		t.Errorf("first sweep (-want +got):\n%s", d)
	}
	if got := reported(); len(got) != 0 {
		t.Errorf("second sweep reported %v again", got)
	}
	snap.Ended = nil // slurmctld forgot them (MinJobAge)
	reported()
	snap.Ended = ended[:1]
	if d := cmp.Diff(map[int64]time.Time{7: end}, reported()); d != "" {
		t.Errorf("after slurmctld forgot and listed it again (-want +got):\n%s", d)
	}
}
