package queue

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestGPUShape(t *testing.T) {
	tests := []struct {
		job  planner.Job
		want string
	}{
		{planner.Job{GPUsPerNode: 4, Nodes: 1}, "4"},
		{planner.Job{GPUsPerNode: 4, Nodes: 2}, "2x4"},
		{planner.Job{GPUsPerJob: 3, Nodes: 1}, "3/job"},
		{planner.Job{GPUsPerNode: 2, Nodes: 1, GPUType: "a100"}, "2:a100"},
		{planner.Job{Nodes: 1}, "0"},
	}
	for _, tc := range tests {
		if got := gpuShape(tc.job); got != tc.want {
			t.Errorf("gpuShape(%+v) = %q, want %q", tc.job, got, tc.want)
		}
	}
}

func TestHintTextKeepsOnlyTheSegment(t *testing.T) {
	r := Row{Job: planner.Job{Comment: "my notes STRATA: model=bert   gpus=2 ; not hints"}, HasHint: true}
	if got := hintText(r, 0); got != "STRATA: model=bert gpus=2" {
		t.Errorf("hintText = %q", got)
	}
	if got := clip("abcdef", 4); got != "abc…" || !strings.HasSuffix(clip("x", 0), "x") {
		t.Errorf("clip = %q", got)
	}
}

// The HINT column shows the segment as written, found with the planner's own
// rules: multi-byte text before it (whose lower case has another length)
// and a "strata:" inside another word must not shift or crash it.
func TestHintTextFindsTheSegmentAsWritten(t *testing.T) {
	tests := []struct{ comment, want string }{
		{strings.Repeat("Ⱥ", 40) + " strata: gpus=2", "strata: gpus=2"},
		{"İİİ; STRATA: gpus=1-4;  mine", "STRATA: gpus=1-4"},
		{"nostrata: x; strata:  gpus=2", "strata: gpus=2"},
	}
	for _, tt := range tests {
		if got := hintText(Row{Job: planner.Job{Comment: tt.comment}, HasHint: true}, 0); got != tt.want {
			t.Errorf("hintText(%q) = %q, want %q", tt.comment, got, tt.want)
		}
	}
}

func TestWriters(t *testing.T) {
	rows := Rows([]planner.Job{
		{ID: 7, Partition: "gpu", Name: "a-very|long-job-name", User: "alice", State: planner.JobPending,
			GPUsPerNode: 2, Nodes: 1, Priority: 10, TimeLimit: 26 * time.Hour, Comment: "notes; strata:  gpus=1-2"},
		{ID: 8, Partition: "gpu", Name: "b", User: "bob", State: planner.JobRunning, GPUsPerNode: 4, Nodes: 2, Priority: 5},
	})
	forged := Rows([]planner.Job{{ID: 9, Partition: "gpu", Name: "x\n10|gpu|evil|root|R|1|1|-", User: "mallory",
		State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Priority: 1}})
	tests := []struct {
		name  string
		write func(*strings.Builder) error
		want  string
	}{
		{"table on a 120-column terminal", func(b *strings.Builder) error { return WriteTable(b, rows, true, 120) },
			"JOBID  PARTITION  NAME          USER   ST  GPUS  PRIORITY  TIME_LIMIT  DECISION  START  HINT\n" +
				"7      gpu        a-very|long…  alice  PD  2     10        1-02:00:00  -         -      strata: gpus=1-2\n" +
				"8      gpu        b             bob    R   2x4   5         UNLIMITED   -         -      -\n"},
		{"table on a narrow terminal: the hint is cut to the line", func(b *strings.Builder) error { return WriteTable(b, rows[:1], false, 70) },
			"7  gpu  a-very|long…  alice  PD  2  10  1-02:00:00  -  -  strata: gpu…\n"},
		{"table piped: nothing cut (issue 26.7)", func(b *strings.Builder) error { return WriteTable(b, rows, true, 0) },
			"JOBID  PARTITION  NAME                  USER   ST  GPUS  PRIORITY  TIME_LIMIT  DECISION  START  HINT\n" +
				"7      gpu        a-very|long-job-name  alice  PD  2     10        1-02:00:00  -         -      strata: gpus=1-2\n" +
				"8      gpu        b                     bob    R   2x4   5         UNLIMITED   -         -      -\n"},
		{"parsable without header", func(b *strings.Builder) error { return WriteParsable(b, rows, false) },
			"7|gpu|a-very/long-job-name|alice|PD|2|10|1-02:00:00|-|-|strata: gpus=1-2\n" +
				"8|gpu|b|bob|R|2x4|5|UNLIMITED|-|-|-\n"},
		{"a name with a line break forges no row (issue 23.9)", func(b *strings.Builder) error { return WriteParsable(b, forged, true) },
			"JOBID|PARTITION|NAME|USER|ST|GPUS|PRIORITY|TIME_LIMIT|DECISION|START|HINT\n9|gpu|x\\n10/gpu/evil/root/R/1/1/-|mallory|PD|1|1|UNLIMITED|-|-|-\n"},
		{"nor in the table", func(b *strings.Builder) error { return WriteTable(b, forged, false, 0) },
			"9  gpu  x\\n10|gpu|evil|root|R|1|1|-  mallory  PD  1  1  UNLIMITED  -  -  -\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecisionAndStartColumns: the queue says what Strata decided for each
// job and when it plans a pending one to start, from the admin comment
// Strata wrote, so that a user needs no database to see it (issue 26.2).
func TestDecisionAndStartColumns(t *testing.T) {
	started := time.Date(2026, 11, 24, 11, 58, 0, 0, time.UTC)
	rows := Rows([]planner.Job{
		{ID: 7, Partition: "gpu", Name: "rn50", User: "alice", State: planner.JobPending, GPUsPerNode: 2, Nodes: 1, Priority: 100030,
			Reason: "BeginTime", Comment: "strata: gpus=1-4",
			AdminComment: "jobstats=1; strata: workers=2 ps=0 rank=1 cycle=3 defer=1795522800 why=deferred,allocation_changed start=2026-11-24T12:20:00Z"},
		{ID: 8, Partition: "gpu", Name: "old", User: "bob", State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Priority: 100020,
			AdminComment: "strata: workers=1 ps=0 rank=2 cycle=3 defer=1795523400"},
		{ID: 9, Partition: "gpu", Name: "run", User: "bob", State: planner.JobRunning, GPUsPerNode: 4, Nodes: 1, Priority: 1,
			StartTime: started, AdminComment: "strata: workers=4 ps=0 rank=1 cycle=2 why=admitted start=2026-11-24T11:57:00Z"},
		{ID: 10, Partition: "gpu", Name: "mine", User: "carol", State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Priority: 1,
			Comment: "strata: rewrite=no"},
	})
	var b strings.Builder
	if err := WriteParsable(&b, rows, true); err != nil {
		t.Fatal(err)
	}
	want := "JOBID|PARTITION|NAME|USER|ST|GPUS|PRIORITY|TIME_LIMIT|DECISION|START|HINT\n" +
		"7|gpu|rn50|alice|PD|2|100030|UNLIMITED|deferred,allocation_changed|2026-11-24T12:20:00|strata: gpus=1-4\n" +
		"8|gpu|old|bob|PD|1|100020|UNLIMITED|rank 2|2026-11-24T12:30:00|-\n" +
		"9|gpu|run|bob|R|4|1|UNLIMITED|admitted|2026-11-24T11:58:00|-\n" +
		"10|gpu|mine|carol|PD|1|1|UNLIMITED|-|-|strata: rewrite=no\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("queue -P (-want +got):\n%s", d)
	}
	f, err := ParseFormat("%i %S")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteFormat(&b, f, rows[:2], Starts{8: started}, false); err != nil {
		t.Fatal(err)
	}
	if want := "7 2026-11-24T12:20:00\n8 2026-11-24T11:58:00\n"; b.String() != want {
		t.Errorf("%%S: %q, want %q (a planned start from --start first, else Strata's last write)", b.String(), want)
	}
}
