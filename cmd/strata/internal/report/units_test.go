package report

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// TestUnitsTimeFormatsAndHelp (issue 26.7): --units scales the energy
// columns, -t shows GPU time as sreport does, -o help lists the fields.
func TestUnitsTimeFormatsAndHelp(t *testing.T) {
	user := db.DimUser
	tests := []struct {
		name   string
		mode   OutputMode
		report string
		want   string
	}{
		{"--units Wh", OutputMode{Parsable: true, Units: "Wh", Format: "User,Energy,IdleEnergy"}, "energy",
			"User|Energy(Wh)|IdleEnergy(Wh)\nalice|8800.0|0.0\nbob|200.0|200.0\n"},
		{"--units M (sacct's letters)", OutputMode{Parsable: true, Units: "M", Format: "User,Energy"}, "energy",
			"User|Energy(MWh)\nalice|0.008800\nbob|0.000200\n"},
		{"-t minutes", OutputMode{Parsable: true, Time: "minutes", Format: "User,GPUHours"}, "energy",
			"User|GPUmin\nalice|1920\nbob|120\n"},
		{"-t percent", OutputMode{Parsable: true, Time: "percent", Format: "User,GPUHours"}, "energy",
			"User|GPU(%)\nalice|94.1\nbob|5.9\n"},
		{"-t hours/percent", OutputMode{Parsable: true, Time: "hours/percent", Format: "User,GPUHours"}, "energy",
			"User|GPUh(%)\nalice|32.00(94.1%)\nbob|2.00(5.9%)\n"},
		{"-t seconds on usage", OutputMode{Parsable: true, Time: "seconds", Format: "User,GPUHours"}, "usage",
			"User|GPUsec\n"},
		{"-o help", OutputMode{Format: "help"}, "decisions",
			"FIELD      HEADER\nAction     Action\nReason     Reason\nDecisions  Decisions\nApplied    Applied\nJobs       Jobs\nCycles     Cycles\nFirst      First\nLast       Last\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			n := 0
			q := demoQuery(tt.mode, user)
			var err error
			switch tt.report {
			case "energy":
				err = Energy(context.Background(), &out, opens(reporttest.Demo(), &n), q, EnergyFactors{}, zerolog.Nop())
			case "usage":
				err = Usage(context.Background(), &out, opens(reporttest.Demo(), &n), q)
			default:
				err = Decisions(context.Background(), &out, opens(reporttest.Demo(), &n), q)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.report == "usage" && len(got) > len(tt.want) {
				got = got[:len(tt.want)]
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
			if tt.mode.Format == "help" && n != 0 {
				t.Errorf("-o help opened the database %d times", n)
			}
		})
	}
	for _, bad := range []OutputMode{{Units: "GWh"}, {Time: "fortnights"}, {Time: "percent/hours"}} {
		_, err := Args{Start: "2026-11-20", End: "2026-11-21", TimeZone: "UTC", Mode: bad}.Query(time.Now())
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err %v, want an InputError", bad, err)
		}
	}
}

// TestNothingFoundForNamedUsersOrJobs (issue 26.7): a misspelt user or a
// job without decisions exits 1 with a message, not an empty table.
func TestNothingFoundForNamedUsersOrJobs(t *testing.T) {
	tests := []struct {
		name    string
		filter  db.ReportFilter
		report  string
		wantErr string
	}{
		{"unknown user", db.ReportFilter{Users: []string{"alcie"}}, "energy", "no GPU energy for user alcie from 2026-"},
		{"job without decisions", db.ReportFilter{Jobs: []int64{4242}}, "decisions", "no planner decisions for job 4242 from "},
		{"unknown user, usage", db.ReportFilter{Users: []string{"nobody"}}, "usage", "no usage for user nobody"},
		{"no filter: an empty report is fine", db.ReportFilter{}, "decisions", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := demoQuery(OutputMode{}, db.DimUser)
			q.Filter.Users, q.Filter.Jobs = tt.filter.Users, tt.filter.Jobs
			src := &reporttest.Source{}
			n := 0
			var out bytes.Buffer
			var err error
			switch tt.report {
			case "energy":
				err = Energy(context.Background(), &out, opens(src, &n), q, EnergyFactors{}, zerolog.Nop())
			case "usage":
				err = Usage(context.Background(), &out, opens(src, &n), q)
			default:
				err = Decisions(context.Background(), &out, opens(src, &n), q)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var nf *NotFoundError
			if !errors.As(err, &nf) || nf.ExitCode() != 1 || !bytes.Contains([]byte(err.Error()), []byte(tt.wantErr)) {
				t.Errorf("err %v, want a NotFoundError (exit 1) containing %q", err, tt.wantErr)
			}
		})
	}
}
