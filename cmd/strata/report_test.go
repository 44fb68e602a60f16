package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// cliRun runs the app with the report and serve commands over src and
// returns stdout and how often the source was opened.
func cliRun(src report.Source, args ...string) (string, int, error) {
	var out, errb strings.Builder
	app := newApp(&out, &errb)
	opened := 0
	open := func(*cli.Context) (report.Source, func(), error) { opened++; return src, func() {}, nil }
	app.Commands = []*cli.Command{reportCommandWith(open), serveCommandWith(open)}
	err := app.Run(append([]string{"strata"}, args...))
	return out.String(), opened, err
}

var errDatabaseDown = errors.New("database unavailable")

const demoWindow = "-S=2026-11-20T22:00 -E=2026-11-21T03:00 --timezone=UTC"

// The commands print what package report prints for the query their flags
// make (the formats themselves are tested there).
func TestReportCommandsPrint(t *testing.T) {
	tests := []struct{ args, want string }{
		{"report energy -P " + demoWindow,
			"User|Jobs|GPUh|Energy(kWh)|MeanUtil(%)|IdleEnergy(kWh)|Idle(%)\n" +
				"alice|2|32.00|8.800|87.5|0.000|0.0\nbob|1|2.00|0.200|2.0|0.200|100.0\n"},
		{"report energy --by account --cost-per-kwh 0.25 --currency CHF --co2-kg-per-kwh 0.4 -p -n -o account,cost,co2 " + demoWindow,
			"nlp|1.25|2.000|\nvision|1.00|1.600|\n"},
		{"report energy --by= --noheader --parsable2 --format=Jobs,Energy " + demoWindow, "3|9.000\n"},
		{"report energy --by user,day -P -n --format Day,User " + demoWindow, "2026-11-20|alice\n2026-11-20|bob\n2026-11-21|alice\n"},
		{"report usage -P -n " + demoWindow, "alice|2|32.00|1|00:30:00|00:30:00|04:30:00\nbob|1|2.00|1|01:00:00|01:00:00|02:00:00\n"},
		{"report decisions -o Action,First " + demoWindow, "Action               First\n------ -------------------\nupdate 2026-11-20T22:30:00\n"},
		{"report decisions --json " + demoWindow, `{
  "window": {
    "start": "2026-11-20T22:00:00Z",
    "end": "2026-11-21T03:00:00Z"
  },
  "rows": [
    {
      "action": "update",
      "reason": "smd_optimal",
      "decisions": 3,
      "applied": 1,
      "jobs": 2,
      "cycles": 3,
      "first": "2026-11-20T22:30:00Z",
      "last": "2026-11-20T23:30:00Z"
    }
  ]
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			out, _, err := cliRun(reporttest.Demo(), strings.Fields(tt.args)...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, out); d != "" {
				t.Errorf("strata %s (-want +got):\n%s", tt.args, d)
			}
		})
	}
}

// The flags make the query: window in the time zone, filters, grouping.
func TestReportFlagsMakeTheQuery(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	src := reporttest.Demo()
	args := "report energy -P -u alice,bob -A nlp,vision -r gpu -j 13,11 -M demo -s cd,Timeout --by day --by user " +
		"-S 2026-11-20T22:00 -E 2026-11-21 --timezone Europe/Berlin"
	var nothing *report.NotFoundError // the fixed rows have no day,user group
	if _, _, err := cliRun(src, strings.Fields(args)...); err != nil && !errors.As(err, &nothing) {
		t.Fatal(err)
	}
	want := []any{db.EnergyQuery{ReportFilter: db.ReportFilter{
		From: time.Date(2026, 11, 20, 22, 0, 0, 0, berlin), To: time.Date(2026, 11, 21, 0, 0, 0, 0, berlin),
		Users: []string{"alice", "bob"}, Accounts: []string{"nlp", "vision"}, Partitions: []string{"gpu"},
		Jobs: []int64{13, 11}, Clusters: []string{"demo"}, States: []string{"COMPLETED", "TIMEOUT"}},
		By: []db.ReportDim{db.DimDay, db.DimUser}, Location: berlin}}
	zone := cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })
	if d := cmp.Diff(want, src.Queries(), zone); d != "" {
		t.Errorf("strata %s queried (-want +got):\n%s", args, d)
	}
}

func TestReportRejectsBadInput(t *testing.T) {
	for _, args := range []string{
		"report energy --by team",
		"report energy --by user,user",
		"report energy --state done",
		"report usage -s CD,XX",
		"report energy --format=User,Watts",
		"report energy --format=User%x",
		"report energy -S tomorrow-ish",
		"report energy -S now -E now-1days",
		"report energy -j 12.batch",
		"report usage --by node",
		"report decisions -o ,",
		"report energy --timezone Mars/Olympus",
		"report energy --units GWh",
		"report usage -t fortnights",
		"report refresh -E bogus",
		"serve --timezone Mars/Olympus",
		"serve --tls-cert cert.pem",
	} {
		t.Run(args, func(t *testing.T) {
			_, opened, err := cliRun(reporttest.Demo(), strings.Fields(args)...)
			if code := exitCodeOf(err); code != 2 || opened != 0 {
				t.Errorf("err = %v (exit %d), source opened %d times; want exit status 2 before opening", err, code, opened)
			}
		})
	}
}

func TestReportSourceErrorIsReturned(t *testing.T) {
	src := reporttest.Demo()
	src.Err = errDatabaseDown
	_, _, err := cliRun(src, "report", "energy")
	if err == nil || err.Error() != errDatabaseDown.Error() || exitCodeOf(err) != -1 {
		t.Errorf("err = %v, want the source's error (exit status 1)", err)
	}
	if _, _, err := cliRun(src, "report", "refresh"); err == nil || !strings.Contains(err.Error(), "cannot rebuild rollups") {
		t.Errorf("refresh over a source without rollups: err = %v", err)
	}
}

// TestReportHelpAndNothingFound (issue 26.7): -o help lists the fields and
// exits 0 without a database; a report of a user or job that has nothing
// exits 1 with a message.
func TestReportHelpAndNothingFound(t *testing.T) {
	tests := []struct {
		args     string
		code     int
		opened   int
		contains string
	}{
		{"report energy -o help", 0, 0, "GPUHours       GPUh\n"},
		{"report decisions --format=HELP", 0, 0, "Reason     Reason"},
		{"report calibration -o help", 0, 0, "errbefore  ErrBefore"},
		{"report power -o help", 0, 0, "IdleFor"},
		{"report energy -u nosuchuser -S 2026-11-20T22:00 -E 2026-11-21T03:00", 1, 1, "no GPU energy for user nosuchuser"},
		{"report decisions -j 4242 -S 2026-11-20T22:00 -E 2026-11-21T03:00", 1, 1, "no planner decisions for job 4242"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			out, opened, err := cliRun(&reporttest.Source{}, strings.Fields(tt.args)...)
			code := 0
			if err != nil {
				code = exitCodeOf(err)
			}
			if code != tt.code || opened != tt.opened {
				t.Errorf("exit %d, source opened %d times (err %v); want %d and %d", code, opened, err, tt.code, tt.opened)
			}
			got := out
			if err != nil {
				got += err.Error()
			}
			if !strings.Contains(got, tt.contains) {
				t.Errorf("output %q lacks %q", got, tt.contains)
			}
		})
	}
}
