package report

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
)

func TestArgsQuery(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	valid := func() Args {
		return Args{Start: "now-7days", End: "now", TimeZone: "UTC", By: []string{"user"}}
	}
	tests := []struct {
		name    string
		edit    func(*Args)
		wantErr string
	}{
		{"valid", func(*Args) {}, ""},
		{"bad zone", func(a *Args) { a.TimeZone = "Mars/Olympus" }, "Mars/Olympus"},
		{"bad start", func(a *Args) { a.Start = "yesterdayish" }, "--starttime: "},
		{"bad end", func(a *Args) { a.End = "soon" }, "--endtime: "},
		{"end before start", func(a *Args) { a.Start, a.End = "now", "now-1days" }, "before"},
		{"bad job", func(a *Args) { a.Jobs = []string{"12x"} }, `parse --jobs "12x"`},
		{"bad grouping", func(a *Args) { a.By = []string{"planet"} }, "planet"},
		{"bad state", func(a *Args) { a.States = []string{"cd,DONE"} }, `parse --state "DONE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := valid()
			tt.edit(&a)
			_, err := a.Query(now)
			var in *InputError
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Query: %v", err)
			case tt.wantErr != "" && (!errors.As(err, &in) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Query: err = %v, want an InputError containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestArgsQueryFills(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	a := Args{Start: "2026-11-20", End: "now", TimeZone: "UTC", Users: []string{"alice"}, Accounts: []string{"nlp"},
		Partitions: []string{"gpu"}, Clusters: []string{"c1"}, Jobs: []string{"7", " 8"}, By: []string{"user", "day"},
		Mode: OutputMode{Parsable: true, Format: "User"}}
	q, err := a.Query(now)
	if err != nil {
		t.Fatal(err)
	}
	want := Query{
		Filter: db.ReportFilter{From: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), To: now, Users: []string{"alice"},
			Accounts: []string{"nlp"}, Partitions: []string{"gpu"}, Clusters: []string{"c1"}, Jobs: []int64{7, 8}},
		By:   []db.ReportDim{db.ReportDim("user"), db.ReportDim("day")},
		Mode: OutputMode{Parsable: true, Format: "User"},
	}
	if q.Loc.String() != "UTC" {
		t.Errorf("zone %v, want UTC", q.Loc)
	}
	q.Loc = nil // a Location has unexported fields
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
}

func TestParseStates(t *testing.T) {
	tests := []struct {
		in      []string
		want    []string
		wantErr bool
	}{
		{nil, nil, false},
		{[]string{"COMPLETED,TIMEOUT,FAILED"}, []string{"COMPLETED", "TIMEOUT", "FAILED"}, false},
		{[]string{"cd,to", "F", " ca ", "oom"}, []string{"COMPLETED", "TIMEOUT", "FAILED", "CANCELLED", "OUT_OF_MEMORY"}, false},
		{[]string{"r,PD,pending"}, []string{"RUNNING", "PENDING"}, false},
		{[]string{"completed,CD"}, []string{"COMPLETED"}, false},
		{[]string{"finished"}, nil, true},
	}
	for _, tt := range tests {
		got, err := ParseStates(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseStates(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseStates(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}
