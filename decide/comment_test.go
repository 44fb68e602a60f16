package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// TestAdminCommentWhyAndStart: the segment tells the job's owner why and
// when in why= and start=, reads back, and stays readable both ways: an old
// segment parses as before, and why= and start= come after every older key
// (an older Strata stops at the first key it does not know).
func TestAdminCommentWhyAndStart(t *testing.T) {
	start := time.Date(2026, 11, 24, 14, 5, 30, 0, time.UTC)
	tests := []struct {
		name   string
		in     string
		want   Written
		wantOK bool
	}{
		{"why and start", "strata: workers=2 ps=0 rank=3 cycle=9 defer=1795521785 why=deferred,allocation_changed start=2026-11-24T14:05:30Z",
			Written{Workers: 2, Rank: 3, Cycle: 9, Defer: time.Unix(1795521785, 0).UTC(),
				Why: []planner.Reason{planner.ReasonDeferred, planner.ReasonAllocationChanged}, Start: start}, true},
		{"start in another zone is read as UTC", "strata: workers=1 ps=0 rank=1 cycle=1 start=2026-11-24T15:05:30+01:00",
			Written{Workers: 1, Rank: 1, Cycle: 1, Start: start}, true},
		{"old segment without them", "strata: workers=4 ps=0 rank=1 cycle=3 parts=gpua,gpub",
			Written{Workers: 4, Rank: 1, Cycle: 3, Parts: []string{"gpua", "gpub"}}, true},
		{"scontrol's next key ends it", "strata: workers=1 ps=0 rank=1 cycle=1 why=admitted Other=x",
			Written{Workers: 1, Rank: 1, Cycle: 1, Why: []planner.Reason{planner.ReasonAdmitted}}, true},
		{"bad why", "strata: workers=1 ps=0 rank=1 cycle=1 why=Deferred!", Written{}, false},
		{"empty why code", "strata: workers=1 ps=0 rank=1 cycle=1 why=deferred,", Written{}, false},
		{"bad start", "strata: workers=1 ps=0 rank=1 cycle=1 start=tomorrow", Written{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseAdminComment(tt.in)
			if ok != tt.wantOK {
				t.Fatalf("ParseAdminComment(%q) ok = %v, want %v", tt.in, ok, tt.wantOK)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseAdminComment(%q) (-want +got):\n%s", tt.in, d)
			}
			if !ok {
				return
			}
			if back, _ := ParseAdminComment(MergeAdminComment("jobstats=1", got)); !cmp.Equal(back, got) {
				t.Errorf("round trip of %+v gave %+v", got, back)
			}
		})
	}

	w := Written{Workers: 2, Rank: 3, Cycle: 9, Defer: start, Limit: time.Hour, Parts: []string{"a", "b"}}
	old := w.String()
	w.Why, w.Start = []planner.Reason{planner.ReasonDeferred}, start.Add(400*time.Millisecond)
	s := w.String()
	if want := old + " why=deferred start=2026-11-24T14:05:30Z"; s != want {
		t.Errorf("segment %q, want %q (why= and start= last, whole seconds in UTC)", s, want)
	}
	if len(s) > 120 {
		t.Errorf("segment %q is %d characters: keep the user-visible admin comment short", s, len(s))
	}
}

func TestWhyOf(t *testing.T) {
	r := func(rs ...planner.Reason) []planner.Reason { return rs }
	tests := []struct {
		name string
		in   []planner.Reason
		want []planner.Reason
	}{
		{"deferred and resized", r(planner.ReasonModelled, planner.ReasonAllocationChanged, planner.ReasonWaitOrder, planner.ReasonDeferred),
			r(planner.ReasonDeferred, planner.ReasonAllocationChanged)},
		{"admitted as asked", r(planner.ReasonAdmitted, planner.ReasonModelled), r(planner.ReasonAdmitted)},
		{"waits for GPUs", r(planner.ReasonNoHint, planner.ReasonWaitResources, planner.ReasonPredicted), r(planner.ReasonWaitResources)},
		{"only a change", r(planner.ReasonClaimBound), r(planner.ReasonClaimBound)},
		{"neither kind: the first reason", r(planner.ReasonFixedGPUs, planner.ReasonModelled), r(planner.ReasonFixedGPUs)},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, WhyOf(tt.in)); d != "" {
			t.Errorf("%s: WhyOf (-want +got):\n%s", tt.name, d)
		}
	}
	for _, c := range append(append([]planner.Reason{}, whyState...), whyChange...) {
		if c.Describe() == string(c) || strings.ContainsAny(string(c), " ,=") {
			t.Errorf("why code %q has no words or is not one token", c)
		}
	}
}

// TestAdminCommentLimitFormat: limit= is written in Slurm's time format
// ([D-]HH:MM:SS), and the whole minutes older segments wrote are still
// read (issue 30.4); a limit that is neither does not parse.
func TestAdminCommentLimitFormat(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"hours", "strata: workers=1 ps=0 rank=1 cycle=2 limit=02:00:00 why=deferred", 2 * time.Hour, true},
		{"days", "strata: workers=1 ps=0 rank=1 cycle=2 limit=1-12:30:05", 36*time.Hour + 30*time.Minute + 5*time.Second, true},
		{"old minutes", "strata: workers=1 ps=0 rank=1 cycle=2 limit=120 parts=a,b", 2 * time.Hour, true},
		{"minutes out of range", "strata: workers=1 ps=0 rank=1 cycle=2 limit=01:60:00", 0, false},
		{"two fields", "strata: workers=1 ps=0 rank=1 cycle=2 limit=01:30", 0, false},
		{"words", "strata: workers=1 ps=0 rank=1 cycle=2 limit=two-hours", 0, false},
		{"zero", "strata: workers=1 ps=0 rank=1 cycle=2 limit=00:00:00", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseAdminComment(tt.in)
			if ok != tt.wantOK || got.Limit != tt.want {
				t.Errorf("ParseAdminComment(%q) limit %v (%v), want %v (%v)", tt.in, got.Limit, ok, tt.want, tt.wantOK)
			}
		})
	}
	for d, want := range map[time.Duration]string{
		30 * time.Minute: "00:30:00", 48 * time.Hour: "2-00:00:00", 26*time.Hour + time.Second: "1-02:00:01",
	} {
		w := Written{Workers: 1, Rank: 1, Cycle: 1, Limit: d}
		if s := w.String(); !strings.Contains(s, " limit="+want) {
			t.Errorf("limit %v written as %q, want limit=%s", d, s, want)
		}
		if back, ok := ParseAdminComment(w.String()); !ok || back.Limit != d {
			t.Errorf("limit %v read back as %v (%v)", d, back.Limit, ok)
		}
	}
}
