package queue

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func TestFilterAndFormat(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	rows := Rows([]planner.Job{
		{ID: 1, Name: "bert", User: "alice", Partition: "gpu", State: planner.JobRunning, GPUsPerNode: 4, Nodes: 1,
			StartTime: t0, Priority: 10, Comment: "strata: model=bert gpus=2-4"},
		{ID: 2, Name: "resnet", User: "bob", Partition: "gpu", State: planner.JobPending, GPUsPerNode: 2, Nodes: 1,
			Priority: 20, Reason: "Resources", Comment: "strata: model=resnet50 gpus=1-2"},
		{ID: 3, Name: "other", User: "bob", Partition: "debug", State: planner.JobPending, GPUsPerJob: 1, Nodes: 1},
	})
	states, err := ParseStates([]string{"pd"})
	if err != nil {
		t.Fatal(err)
	}
	got := Filter{Users: []string{"bob"}, States: states}.Apply(rows)
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 3 {
		t.Fatalf("bob's pending jobs: %v", got)
	}
	if got := (Filter{Partitions: []string{"debug"}}).Apply(rows); len(got) != 1 || got[0].ID != 3 {
		t.Errorf("partition filter: %v", got)
	}
	f, err := ParseFormat("%.4i %-8j %.2t %b %S %r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFormat(&b, f, rows[:2], Starts{2: t0.Add(time.Hour)}, true); err != nil {
		t.Fatal(err)
	}
	want := "JOBI NAME     ST GPUS START_TIME REASON\n" +
		"   1 bert      R 4 2026-11-24T10:00:00\n" +
		"   2 resnet   PD 2 2026-11-24T11:00:00 Resources\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("format output (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"%z", "", "plain"} {
		if _, err := ParseFormat(bad); err == nil {
			t.Errorf("ParseFormat(%q) accepted", bad)
		}
	}
	if _, err := ParseStates([]string{"done"}); err == nil {
		t.Error("ParseStates(done) accepted")
	}
}

// TestFormatTimeLimitAsSqueue (issue 26.7): %l prints squeue's
// [D-]HH:MM:SS, not Go's 26h0m0s, and a name's line break forges no row.
func TestFormatTimeLimitAsSqueue(t *testing.T) {
	rows := Rows([]planner.Job{
		{ID: 1, Name: "a\nb", State: planner.JobPending, TimeLimit: 26 * time.Hour},
		{ID: 2, Name: "c", State: planner.JobPending, TimeLimit: 90 * time.Second},
		{ID: 3, Name: "d", State: planner.JobPending},
	})
	f, err := ParseFormat("%i %j %l")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFormat(&b, f, rows, nil, false); err != nil {
		t.Fatal(err)
	}
	want := "1 a\\nb 1-02:00:00\n2 c 00:01:30\n3 d UNLIMITED\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("format output (-want +got):\n%s", diff)
	}
}

// TestFormatHelp (issue 35.6): `-o help` lists every field --format
// accepts, each of which parses and has a header, and a format without a
// field points to it.
func TestFormatHelp(t *testing.T) {
	var b strings.Builder
	if err := WriteFormatHelp(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var listed []string
	for _, l := range lines[1:] {
		if len(l) > 2 && l[0] == '%' && l[2] == ' ' {
			listed = append(listed, strings.Fields(l)[0]+" "+strings.Fields(l)[1])
		}
	}
	var want []string
	for _, c := range "iPjutTbDQrVSlh" {
		f, err := ParseFormat("%" + string(c))
		if err != nil {
			t.Errorf("%%%c: %v", c, err)
			continue
		}
		want = append(want, "%"+string(c)+" "+fieldHeader[f.parts[0].field])
	}
	if d := cmp.Diff(want, listed); d != "" {
		t.Errorf("fields listed by -o help (-want +got):\n%s", d)
	}
	for _, bad := range []string{"help me", "%z"} {
		if _, err := ParseFormat(bad); err == nil || !strings.Contains(err.Error(), "-o help lists them") {
			t.Errorf("ParseFormat(%q) = %v; want an error pointing to -o help", bad, err)
		}
	}
}
