package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runStrataOut runs strata and returns its standard output alone.
func runStrataOut(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	err := newApp(&out, &errOut).RunContext(context.Background(), append([]string{"strata", "--log-level", "warn"}, args...))
	if err != nil {
		t.Fatalf("strata %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// Against Postgres filled through the CLI (the demo replay): the web API
// returns the CLI's --json documents, and day and hour buckets are cut in
// the report's time zone.
func TestReportsAgainstPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	browserDemoDB(t)
	base := startServe(t)
	const window = "-S 2026-11-20T11:00:00Z -E 2026-11-20T13:00:00Z"
	for _, tc := range []struct{ api, cli string }{
		{"/api/energy?by=user&by=day", "report energy --json --by user,day --timezone UTC"},
		{"/api/energy?by=job&user=bob", "report energy --json --by job -u bob --timezone UTC"},
		{"/api/usage?by=account", "report usage --json --by account --timezone UTC"},
		{"/api/decisions", "report decisions --json --timezone UTC"},
	} {
		sep := "?"
		if strings.Contains(tc.api, "?") {
			sep = "&"
		}
		resp, err := http.Get(base + tc.api + sep + "start=2026-11-20T11:00&end=2026-11-20T13:00")
		if err != nil {
			t.Fatal(err)
		}
		api, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d, %v: %s", tc.api, resp.StatusCode, err, api)
		}
		cli := runStrataOut(t, strings.Fields(tc.cli+" "+window)...)
		var rows struct{ Rows []any }
		if err := json.Unmarshal(api, &rows); err != nil || len(rows.Rows) == 0 {
			t.Errorf("GET %s: %v, no rows:\n%s", tc.api, err, api)
		}
		if d := cmp.Diff(cli, string(api)); d != "" {
			t.Errorf("GET %s vs strata %s (-cli +api):\n%s", tc.api, tc.cli, d)
		}
	}
	// The demo ran 12:00-12:06 UTC: 02:00 the next day at UTC+14. Hours are
	// the rollups' (UTC) hours, shown in the zone: 17:30 at UTC+5:30.
	for _, tc := range []struct{ args, want string }{
		{"--by day --format Day --timezone UTC", "2026-11-20\n"},
		{"--by day --format Day --timezone Pacific/Kiritimati", "2026-11-21\n"},
		{"--by hour --format Hour --timezone UTC", "2026-11-20T12:00\n"},
		{"--by hour --format Hour --timezone Asia/Kolkata", "2026-11-20T17:30\n"},
	} {
		if got := runStrataOut(t, strings.Fields("report energy -P -n "+tc.args+" "+window)...); got != tc.want {
			t.Errorf("strata report energy %s = %q, want %q", tc.args, got, tc.want)
		}
	}
	// The same energy whatever the zone.
	total := func(zone string) string {
		return runStrataOut(t, strings.Fields("report energy -P -n --by= --format Jobs,EnergyRaw --timezone "+zone+" "+window)...)
	}
	if utc, kiri := total("UTC"), total("Pacific/Kiritimati"); utc != kiri || utc == "" {
		t.Errorf("totals differ by zone: UTC %q, UTC+14 %q", utc, kiri)
	}
}

// strata report calibration runs its query against the migrated schema
// and prints each format; the demo's decisions carry no model facts (as
// those recorded before migration 005), so no job counts.
func TestReportCalibrationAgainstPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	browserDemoDB(t)
	window := []string{"-S", "2026-11-20T11:00:00Z", "-E", "2026-11-20T13:00:00Z"}
	var doc struct {
		Window map[string]string
		Rows   []any
	}
	out := runStrataOut(t, append([]string{"report", "calibration", "--json"}, window...)...)
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Window["start"] == "" || len(doc.Rows) != 0 {
		t.Errorf("--json: %v:\n%s", err, out)
	}
	if out := runStrataOut(t, append([]string{"report", "calibration", "--csv"}, window...)...); !strings.HasPrefix(out, "Kind,Model,GPUType,Jobs") {
		t.Errorf("--csv:\n%s", out)
	}
}
