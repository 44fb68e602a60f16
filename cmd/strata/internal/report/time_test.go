package report

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 15, 30, 45, 0, time.UTC)
	tests := []struct {
		in   string
		loc  *time.Location
		want time.Time
		err  bool
	}{
		{in: "now", loc: time.UTC, want: now},
		{in: "now-7days", loc: time.UTC, want: now.Add(-7 * 24 * time.Hour)},
		{in: "NOW-2hours", loc: time.UTC, want: now.Add(-2 * time.Hour)},
		{in: "now+30minutes", loc: time.UTC, want: now.Add(30 * time.Minute)},
		{in: "now-90", loc: time.UTC, want: now.Add(-90 * time.Second)},
		{in: "now-1weeks", loc: time.UTC, want: now.Add(-7 * 24 * time.Hour)},
		{in: "today", loc: time.UTC, want: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{in: "midnight", loc: berlin, want: time.Date(2026, 11, 22, 0, 0, 0, 0, berlin)},
		{in: "yesterday", loc: time.UTC, want: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)},
		{in: "2026-11-20", loc: time.UTC, want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "2026-11-20T12:05", loc: berlin, want: time.Date(2026, 11, 20, 12, 5, 0, 0, berlin)},
		{in: "2026-11-20T12:05:09", loc: time.UTC, want: time.Date(2026, 11, 20, 12, 5, 9, 0, time.UTC)},
		{in: "2026-11-20T12:05:09Z", loc: berlin, want: time.Date(2026, 11, 20, 12, 5, 9, 0, time.UTC)},
		{in: "11/20/26", loc: time.UTC, want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "08:15", loc: time.UTC, want: time.Date(2026, 11, 22, 8, 15, 0, 0, time.UTC)},
		// sacct's month/day forms (issue 17: `-S 11/20` was documented but refused).
		{in: "11/20", loc: time.UTC, want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "1/5", loc: berlin, want: time.Date(2026, 1, 5, 0, 0, 0, 0, berlin)},
		{in: "11/20/2025", loc: time.UTC, want: time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "11/20-14:30", loc: berlin, want: time.Date(2026, 11, 20, 14, 30, 0, 0, berlin)},
		{in: "11/20/25-14:30:15", loc: time.UTC, want: time.Date(2025, 11, 20, 14, 30, 15, 0, time.UTC)},
		{in: "11.20", loc: time.UTC, want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "11.20.25-08:00", loc: time.UTC, want: time.Date(2025, 11, 20, 8, 0, 0, 0, time.UTC)},
		{in: "1120", loc: time.UTC, want: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{in: "112025-23:59", loc: time.UTC, want: time.Date(2025, 11, 20, 23, 59, 0, 0, time.UTC)},
		{in: "08:15:30", loc: time.UTC, want: time.Date(2026, 11, 22, 8, 15, 30, 0, time.UTC)},
		{in: "8:15pm", loc: time.UTC, want: time.Date(2026, 11, 22, 20, 15, 0, 0, time.UTC)},
		{in: "12:00AM", loc: time.UTC, want: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{in: "noon", loc: time.UTC, want: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		{in: "teatime", loc: time.UTC, want: time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)},
		{in: "13/01", loc: time.UTC, err: true},
		{in: "02/30", loc: time.UTC, err: true},
		{in: "11/20-25:00", loc: time.UTC, err: true},
		{in: "11/20.26", loc: time.UTC, err: true},
		{in: "13:00pm", loc: time.UTC, err: true},
		{in: "24:00", loc: time.UTC, err: true},
		{in: "now-7fortnights", loc: time.UTC, err: true},
		{in: "last tuesday", loc: time.UTC, err: true},
		{in: "2026-13-01", loc: time.UTC, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTime(tt.in, now, tt.loc)
			if tt.err {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestLoadZone(t *testing.T) {
	for _, tc := range []struct{ in, want string }{{"UTC", "UTC"}, {"Europe/Berlin", "Europe/Berlin"}} {
		l, err := LoadZone(tc.in)
		if err != nil || l.String() != tc.want {
			t.Errorf("LoadZone(%q) = %v, %v; want %s", tc.in, l, err, tc.want)
		}
	}
	t.Setenv("TZ", "Asia/Tokyo")
	if l, err := LoadZone("Local"); err != nil || l.String() != "Asia/Tokyo" {
		t.Errorf("LoadZone(Local) with TZ=Asia/Tokyo = %v, %v; want the IANA name", l, err)
	}
	if _, err := LoadZone("Mars/Olympus"); err == nil {
		t.Errorf("LoadZone(Mars/Olympus) succeeded")
	}
}
