package queue

import (
	"strings"
	"testing"

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
			GPUsPerNode: 2, Nodes: 1, Priority: 10, Comment: "notes; strata:  gpus=1-2"},
		{ID: 8, Partition: "gpu", Name: "b", User: "bob", State: planner.JobRunning, GPUsPerNode: 4, Nodes: 2, Priority: 5},
	})
	forged := Rows([]planner.Job{{ID: 9, Partition: "gpu", Name: "x\n10|gpu|evil|root|R|1|1|-", User: "mallory",
		State: planner.JobPending, GPUsPerNode: 1, Nodes: 1, Priority: 1}})
	tests := []struct {
		name  string
		write func(*strings.Builder) error
		want  string
	}{
		{"table on an 80-column terminal", func(b *strings.Builder) error { return WriteTable(b, rows, true, 80) },
			"JOBID  PARTITION  NAME          USER   ST  GPUS  PRIORITY  HINT\n" +
				"7      gpu        a-very|long…  alice  PD  2     10        strata: gpus=1-2\n" +
				"8      gpu        b             bob    R   2x4   5         -\n"},
		{"table on a narrow terminal: the hint is cut to the line", func(b *strings.Builder) error { return WriteTable(b, rows[:1], false, 52) },
			"7  gpu  a-very|long…  alice  PD  2  10  strata: gpu…\n"},
		{"table piped: nothing cut (issue 26.7)", func(b *strings.Builder) error { return WriteTable(b, rows, true, 0) },
			"JOBID  PARTITION  NAME                  USER   ST  GPUS  PRIORITY  HINT\n" +
				"7      gpu        a-very|long-job-name  alice  PD  2     10        strata: gpus=1-2\n" +
				"8      gpu        b                     bob    R   2x4   5         -\n"},
		{"parsable without header", func(b *strings.Builder) error { return WriteParsable(b, rows, false) },
			"7|gpu|a-very/long-job-name|alice|PD|2|10|strata: gpus=1-2\n" +
				"8|gpu|b|bob|R|2x4|5|-\n"},
		{"a name with a line break forges no row (issue 23.9)", func(b *strings.Builder) error { return WriteParsable(b, forged, true) },
			"JOBID|PARTITION|NAME|USER|ST|GPUS|PRIORITY|HINT\n9|gpu|x\\n10/gpu/evil/root/R/1/1/-|mallory|PD|1|1|-\n"},
		{"nor in the table", func(b *strings.Builder) error { return WriteTable(b, forged, false, 0) },
			"9  gpu  x\\n10|gpu|evil|root|R|1|1|-  mallory  PD  1  1  -\n"},
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
