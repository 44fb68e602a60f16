package dcgm

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadMappingDir(t *testing.T) {
	dir := t.TempDir()
	mtime := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	files := map[string]string{
		"0":       "4711\n",
		"1":       "4711 1001\n4712 1002\n", // two jobs share GPU 1 (Princeton-style "jobid uid")
		"3.1":     "4713\n",                 // MIG instance 1 of GPU 3
		"3.2":     "4713\n",                 // same job on another instance: one holding
		"README":  "not a gpu",
		"2.swp~x": "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadMappingDir(dir, "n1")
	if err != nil {
		t.Fatal(err)
	}
	want := []JobGPU{
		{Job: 4711, Host: "n1", Index: 0, Since: mtime},
		{Job: 4711, Host: "n1", Index: 1, Since: mtime},
		{Job: 4712, Host: "n1", Index: 1, Since: mtime},
		{Job: 4713, Host: "n1", Index: 3, Since: mtime},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if err := os.WriteFile(filepath.Join(dir, "4"), []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMappingDir(dir, "n1"); err == nil {
		t.Error("non-numeric job id: want an error")
	}
	if _, err := ReadMappingDir(filepath.Join(dir, "missing"), "n1"); err == nil {
		t.Error("missing dir: want an error")
	}
}

// Two jobs on one node, Slurm indices in minor order that differ from the
// device index: every GPU must go to exactly the right job.
func TestResolveUUIDsSharedNode(t *testing.T) {
	samples := []Sample{
		{Host: "a", UUID: "A0", Index: 0, Minor: 3}, {Host: "a", UUID: "A1", Index: 1, Minor: 2},
		{Host: "a", UUID: "A2", Index: 2, Minor: 1}, {Host: "a", UUID: "A3", Index: 3, Minor: 0},
		{Host: "b", UUID: "B0", Index: 0, Minor: -1}, {Host: "b", UUID: "B1", Index: 1, Minor: -1},
	}
	slurm := FromSlurm([]SlurmAlloc{
		{Job: 1, Node: "a", Indices: []int{0, 1}},
		{Job: 2, Node: "a", Indices: []int{2, 3}},
		{Job: 2, Node: "b", Indices: []int{1}},
		{Job: 3, Node: "c", Indices: []int{0}},
	})
	tests := []struct {
		name           string
		jobs           []JobGPU
		kind           IndexKind
		want, wantMiss []JobGPU
	}{
		{name: "slurm indices by minor, fallback to index on a host without minors", jobs: slurm, kind: ByMinor,
			want: []JobGPU{
				{Job: 1, Host: "a", Index: 0, UUID: "A3"}, {Job: 1, Host: "a", Index: 1, UUID: "A2"},
				{Job: 2, Host: "a", Index: 2, UUID: "A1"}, {Job: 2, Host: "a", Index: 3, UUID: "A0"},
				{Job: 2, Host: "b", Index: 1, UUID: "B1"},
			},
			wantMiss: []JobGPU{{Job: 3, Host: "c", Index: 0}}},
		{name: "mapping dir by device index", kind: ByDeviceIndex,
			jobs: []JobGPU{{Job: 7, Host: "a", Index: 0}, {Job: 8, Host: "a", Index: 0}, {Job: 8, Host: "a", Index: 3}},
			want: []JobGPU{{Job: 7, Host: "a", Index: 0, UUID: "A0"}, {Job: 8, Host: "a", Index: 0, UUID: "A0"},
				{Job: 8, Host: "a", Index: 3, UUID: "A3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, miss := ResolveUUIDs(tt.jobs, samples, tt.kind)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("resolved (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantMiss, miss); d != "" {
				t.Errorf("unresolved (-want +got):\n%s", d)
			}
		})
	}
}

func TestTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	restored := Assignment{Job: 9, Host: "a", UUID: "A9", From: at(-100)}
	tr := NewTracker([]Assignment{restored, {Job: 8, UUID: "closed", From: at(-50), To: at(-10)}})
	type step struct {
		now                  time.Time
		cur                  []JobGPU
		wantOpened, wantShut []Assignment
	}
	steps := []step{
		{now: at(0), cur: []JobGPU{{Job: 1, Host: "a", UUID: "A0", Since: at(-3)}, {Job: 9, Host: "a", UUID: "A9"},
			{Job: 2, Host: "a", Index: 5}}, // unresolved: ignored
			wantOpened: []Assignment{{Job: 1, Host: "a", UUID: "A0", From: at(-3)}}},
		{now: at(10), cur: []JobGPU{{Job: 1, Host: "a", UUID: "A0"}, {Job: 2, Host: "a", UUID: "A1"}},
			wantOpened: []Assignment{{Job: 2, Host: "a", UUID: "A1", From: at(10)}},
			wantShut:   []Assignment{{Job: 9, Host: "a", UUID: "A9", From: at(-100), To: at(10)}}},
		{now: at(20), cur: nil,
			wantShut: []Assignment{{Job: 1, Host: "a", UUID: "A0", From: at(-3), To: at(20)},
				{Job: 2, Host: "a", UUID: "A1", From: at(10), To: at(20)}}},
	}
	for i, s := range steps {
		opened, shut := tr.Observe(s.now, s.cur)
		if d := cmp.Diff(s.wantOpened, opened); d != "" {
			t.Errorf("step %d opened (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(s.wantShut, shut); d != "" {
			t.Errorf("step %d closed (-want +got):\n%s", i, d)
		}
	}
	if len(tr.open) != 0 {
		t.Errorf("open after all closed: %v", tr.open)
	}
}
