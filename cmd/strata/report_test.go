package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var cmpApprox = cmpopts.EquateApprox(0, 1e-9)

func TestParseSlurmTime(t *testing.T) {
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
		{in: "now-7fortnights", loc: time.UTC, err: true},
		{in: "last tuesday", loc: time.UTC, err: true},
		{in: "2026-13-01", loc: time.UTC, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSlurmTime(tt.in, now, tt.loc)
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

const demoWindow = "-S=2026-11-20T22:00 -E=2026-11-21T03:00 --timezone=UTC"

func run(t *testing.T, src reportSource, args string) string {
	t.Helper()
	out, err := cliRun(src, strings.Fields(args)...)
	if err != nil {
		t.Fatalf("strata %s: %v", args, err)
	}
	return out
}

func TestReportEnergyOutputs(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"by user parsable", "report energy --by user -P " + demoWindow,
			"User|Jobs|GPUh|Energy(kWh)|MeanUtil(%)|IdleEnergy(kWh)|Idle(%)\n" +
				"alice|2|32.00|8.800|87.5|0.000|0.0\n" +
				"bob|1|2.00|0.200|2.0|0.200|100.0\n"},
		{"window edge pro-rates", "report energy -P -n -E 2026-11-21T02:00 -S 2026-11-20T22:00 --timezone UTC",
			"alice|2|24.00|6.400|85.0|0.000|0.0\nbob|1|2.00|0.200|2.0|0.200|100.0\n"},
		{"format picks and orders, raw joules", "report energy -P --format=energyraw,USER,GPUHours " + demoWindow,
			"EnergyRaw(J)|User|GPUh\n31680000|alice|32.00\n720000|bob|2.00\n"},
		{"by user,day in UTC", "report energy -P -n --by user,day --format=Day,User,GPUHours,Energy " + demoWindow,
			"2026-11-20|alice|8.00|2.000\n2026-11-20|bob|2.00|0.200\n2026-11-21|alice|24.00|6.800\n"},
		{"days cut in Europe/Berlin", "report energy -P -n --by day --by user --format=Day,User,Energy -S 2026-11-20T22:00:00Z -E 2026-11-21T03:00:00Z --timezone Europe/Berlin",
			"2026-11-20|alice|1.000\n2026-11-21|alice|7.800\n2026-11-21|bob|0.200\n"},
		{"filters", "report energy -P -n -u alice -A nlp --by job " + demoWindow,
			"13|gpt|alice|1|16.00|4.800|95.0|0.000|0.0\n"},
		{"cluster filter", "report energy -P -n -M other --format=User " + demoWindow, ""},
		{"cost and CO2", "report energy -P --by account --cost-per-kwh 0.25 --currency CHF --co2-kg-per-kwh 0.4 --format account,energy,cost,co2 " + demoWindow,
			"Account|Energy(kWh)|Cost(CHF)|CO2(kg)\nnlp|5.000|1.25|2.000\nvision|4.000|1.00|1.600\n"},
		{"table with widths", "report energy --format=User%-6,Energy%5,IdlePct " + demoWindow,
			"User   Ener+ Idle(%)\n------ ----- -------\nalice  8.800     0.0\nbob    0.200   100.0\n"},
		{"parsable with trailing bar", "report energy -p --format=User,Jobs " + demoWindow,
			"User|Jobs|\nalice|2|\nbob|1|\n"},
		{"no dimension: total", "report energy --by= -P -n --format=Jobs,GPUHours,Energy,IdleEnergy " + demoWindow,
			"3|34.00|9.000|0.200\n"},
		{"usage", "report usage -P " + demoWindow,
			"User|Jobs|GPUh|Completed|MeanWait|MaxWait|MeanJCT\nalice|2|32.00|1|00:30:00|00:30:00|04:30:00\nbob|1|2.00|1|01:00:00|01:00:00|02:00:00\n"},
		{"decisions", "report decisions -P " + demoWindow,
			"Action|Reason|Decisions|Applied|Jobs|Cycles|First|Last\nupdate|smd_optimal|3|1|2|3|2026-11-20T22:30:00|2026-11-20T23:30:00\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, run(t, demoFake(), tt.args)); d != "" {
				t.Errorf("strata %s (-want +got):\n%s", tt.args, d)
			}
		})
	}
}

func TestReportEnergyJSON(t *testing.T) {
	out := run(t, demoFake(), "report energy --json --by user --cost-per-kwh 0.5 "+demoWindow)
	var doc energyReport
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	type row struct {
		User      string
		KWh, Cost float64
		Idle      float64
	}
	var got []row
	for _, r := range doc.Rows {
		got = append(got, row{r.User, r.EnergyKWh, *r.Cost, r.IdleEnergyKWh})
	}
	want := []row{{"alice", 8.8, 4.4, 0}, {"bob", 0.2, 0.1, 0.2}}
	if d := cmp.Diff(want, got, cmpApprox); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if !doc.Window.Start.Equal(time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)) || doc.Factors.CostPerKWh != 0.5 {
		t.Errorf("window %v, factors %+v", doc.Window, doc.Factors)
	}
}

func TestReportRejectsBadInput(t *testing.T) {
	for _, args := range []string{
		"report energy --by team",
		"report energy --by user,user",
		"report energy --format=User,Watts",
		"report energy --format=User%x",
		"report energy -S tomorrow-ish",
		"report energy -S now -E now-1days",
		"report energy -j 12.batch",
		"report usage --by node",
		"report energy --timezone Mars/Olympus",
	} {
		t.Run(args, func(t *testing.T) {
			_, err := cliRun(demoFake(), strings.Fields(args)...)
			var ec exitCoder
			if !errors.As(err, &ec) || ec.ExitCode() != 2 {
				t.Errorf("err = %v, want exit status 2", err)
			}
		})
	}
}

func TestReportSourceErrorIsReturned(t *testing.T) {
	src := demoFake()
	src.err = errors.New("database unavailable")
	_, err := cliRun(src, "report", "energy")
	if err == nil || !strings.Contains(err.Error(), "database unavailable") {
		t.Errorf("err = %v, want the source's error", err)
	}
}
