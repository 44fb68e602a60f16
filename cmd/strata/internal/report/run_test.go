package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

var cmpApprox = cmpopts.EquateApprox(0, 1e-9)

// opens returns an Opener of src that counts its calls.
func opens(src Source, n *int) Opener {
	return func() (Source, func(), error) { *n++; return src, func() {}, nil }
}

// demoQuery is the demo window in UTC grouped by by, printed in mode.
func demoQuery(mode OutputMode, by ...db.ReportDim) Query {
	return Query{Filter: db.ReportFilter{From: reporttest.DemoStart, To: reporttest.DemoEnd}, By: by, Mode: mode, Loc: time.UTC}
}

var (
	parsable = OutputMode{Parsable: true}
	bare     = OutputMode{Parsable: true, NoHeader: true}
)

func withFormat(m OutputMode, format string) OutputMode { m.Format = format; return m }

func TestEnergyOutputs(t *testing.T) {
	user, account, job, day := db.DimUser, db.DimAccount, db.DimJob, db.DimDay
	tests := []struct {
		name string
		q    Query
		f    EnergyFactors
		want string
	}{
		{"by user parsable", demoQuery(parsable, user), EnergyFactors{},
			"User|Jobs|GPUh|Energy(kWh)|MeanUtil(%)|IdleEnergy(kWh)|Idle(%)\n" +
				"alice|2|32.00|8.800|87.5|0.000|0.0\n" +
				"bob|1|2.00|0.200|2.0|0.200|100.0\n"},
		{"by user table", demoQuery(OutputMode{}, user), EnergyFactors{},
			" User Jobs  GPUh Energy(kWh) MeanUtil(%) IdleEnergy(kWh) Idle(%)\n" +
				"----- ---- ----- ----------- ----------- --------------- -------\n" +
				"alice    2 32.00       8.800        87.5           0.000     0.0\n" +
				"  bob    1  2.00       0.200         2.0           0.200   100.0\n"},
		{"format picks and orders, raw joules", demoQuery(withFormat(parsable, "energyraw,USER,GPUHours"), user), EnergyFactors{},
			"EnergyRaw(J)|User|GPUh\n31680000|alice|32.00\n720000|bob|2.00\n"},
		{"sacct field names", demoQuery(withFormat(bare, "JobID,ConsumedEnergy"), job), EnergyFactors{},
			"13|17280000\n11|14400000\n12|720000\n"},
		{"by user,day in UTC", demoQuery(withFormat(bare, "Day,User,GPUHours,Energy"), user, day), EnergyFactors{},
			"2026-11-20|alice|8.00|2.000\n2026-11-20|bob|2.00|0.200\n2026-11-21|alice|24.00|6.800\n"},
		{"by job: job, name and user first", demoQuery(bare, job), EnergyFactors{},
			"13|gpt|alice|1|16.00|4.800|95.0|0.000|0.0\n11|resnet|alice|1|16.00|4.000|80.0|0.000|0.0\n" +
				"12|bert|bob|1|2.00|0.200|2.0|0.200|100.0\n"},
		{"cost and CO2", demoQuery(withFormat(parsable, "account,energy,cost,co2"), account),
			EnergyFactors{CostPerKWh: 0.25, Currency: "CHF", CO2KgPerKWh: 0.4},
			"Account|Energy(kWh)|Cost(CHF)|CO2(kg)\nnlp|5.000|1.25|2.000\nvision|4.000|1.00|1.600\n"},
		{"cost and CO2 in the default fields", demoQuery(parsable, account), EnergyFactors{CostPerKWh: 0.25, CO2KgPerKWh: 0.4},
			"Account|Jobs|GPUh|Energy(kWh)|MeanUtil(%)|IdleEnergy(kWh)|Idle(%)|Cost(EUR)|CO2(kg)\n" +
				"nlp|2|18.00|5.000|84.7|0.200|4.0|1.25|2.000\nvision|1|16.00|4.000|80.0|0.000|0.0|1.00|1.600\n"},
		{"table with widths", demoQuery(withFormat(OutputMode{}, "User%-6,Energy%5,IdlePct"), user), EnergyFactors{},
			"User   Ener+ Idle(%)\n------ ----- -------\nalice  8.800     0.0\nbob    0.200   100.0\n"},
		{"parsable with trailing bar", demoQuery(OutputMode{Trailing: true, Format: "User,Jobs"}, user), EnergyFactors{},
			"User|Jobs|\nalice|2|\nbob|1|\n"},
		{"no dimension: total", demoQuery(withFormat(bare, "Jobs,GPUHours,Energy,IdleEnergy")), EnergyFactors{},
			"3|34.00|9.000|0.200\n"},
		{"no rows", demoQuery(withFormat(bare, "User"), db.DimPartition, db.DimNode), EnergyFactors{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var n int
			if err := Energy(context.Background(), &out, opens(reporttest.Demo(), &n), tt.q, tt.f, zerolog.Nop()); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Days are labelled in the query's zone (the database cuts them there).
func TestEnergyDaysInZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	src := &reporttest.Source{Energy: map[string][]db.EnergyRow{"day,user": {
		{Bucket: time.Date(2026, 11, 20, 0, 0, 0, 0, berlin), User: "alice", EnergyJ: 3.6e6},
		{Bucket: time.Date(2026, 11, 21, 0, 0, 0, 0, berlin).UTC(), User: "alice", EnergyJ: 28.08e6},
		{Bucket: time.Date(2026, 11, 21, 0, 0, 0, 0, berlin).UTC(), User: "bob", EnergyJ: 720000},
	}}}
	q := demoQuery(withFormat(bare, "Day,User,Energy"), db.DimDay, db.DimUser)
	q.Loc = berlin
	var out bytes.Buffer
	var n int
	if err := Energy(context.Background(), &out, opens(src, &n), q, EnergyFactors{}, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if want := "2026-11-20|alice|1.000\n2026-11-21|alice|7.800\n2026-11-21|bob|0.200\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	want := []any{db.EnergyQuery{ReportFilter: q.Filter, By: q.By, Location: berlin}}
	if d := cmp.Diff(want, src.Queries(), cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })); d != "" {
		t.Errorf("queries (-want +got):\n%s", d)
	}
}

func TestEnergyJSON(t *testing.T) {
	var out bytes.Buffer
	var n int
	q := demoQuery(OutputMode{JSON: true}, db.DimUser)
	if err := Energy(context.Background(), &out, opens(reporttest.Demo(), &n), q, EnergyFactors{CostPerKWh: 0.5}, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	var doc EnergyDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("decode %q: %v", out.String(), err)
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
	if !doc.Window.Start.Equal(reporttest.DemoStart) || doc.Factors.CostPerKWh != 0.5 || !strings.Contains(out.String(), `"by": [`+"\n"+`    "user"`) {
		t.Errorf("window %v, factors %+v, document:\n%s", doc.Window, doc.Factors, out.String())
	}
}

func TestUsageAndDecisions(t *testing.T) {
	tests := []struct {
		name string
		run  func(w *bytes.Buffer, open Opener) error
		want string
	}{
		{"usage", func(w *bytes.Buffer, open Opener) error {
			return Usage(context.Background(), w, open, demoQuery(parsable, db.DimUser))
		}, "User|Jobs|GPUh|Completed|MeanWait|MaxWait|MeanJCT\nalice|2|32.00|1|00:30:00|00:30:00|04:30:00\nbob|1|2.00|1|01:00:00|01:00:00|02:00:00\n"},
		{"usage raw seconds", func(w *bytes.Buffer, open Opener) error {
			return Usage(context.Background(), w, open, demoQuery(withFormat(bare, "User,MeanWaitRaw,MeanJCTRaw"), db.DimUser))
		}, "alice|1800|16200\nbob|3600|7200\n"},
		{"decisions", func(w *bytes.Buffer, open Opener) error {
			return Decisions(context.Background(), w, open, demoQuery(parsable))
		}, "Action|Reason|Decisions|Applied|Jobs|Cycles|First|Last\nupdate|smd_optimal|3|1|2|3|2026-11-20T22:30:00|2026-11-20T23:30:00\n"},
		{"decisions as JSON", func(w *bytes.Buffer, open Opener) error {
			q := demoQuery(OutputMode{JSON: true})
			return Decisions(context.Background(), w, open, q)
		}, `{
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
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var n int
			if err := tt.run(&out, opens(reporttest.Demo(), &n)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Invalid input is refused before the source is opened, with exit status 2.
func TestInvalidInputDoesNotOpen(t *testing.T) {
	ctx, w := context.Background(), &bytes.Buffer{}
	for name, run := range map[string]func(Opener) error{
		"unknown field": func(o Opener) error {
			return Energy(ctx, w, o, demoQuery(withFormat(parsable, "User,Watts")), EnergyFactors{}, zerolog.Nop())
		},
		"bad width":     func(o Opener) error { return Usage(ctx, w, o, demoQuery(withFormat(parsable, "User%x"))) },
		"no fields":     func(o Opener) error { return Decisions(ctx, w, o, demoQuery(withFormat(parsable, ","))) },
		"usage by node": func(o Opener) error { return Usage(ctx, w, o, demoQuery(parsable, db.DimNode)) },
		"usage by hour": func(o Opener) error { return Usage(ctx, w, o, demoQuery(parsable, db.DimHour)) },
	} {
		t.Run(name, func(t *testing.T) {
			var n int
			err := run(opens(reporttest.Demo(), &n))
			var ec interface{ ExitCode() int }
			if !errors.As(err, &ec) || ec.ExitCode() != 2 || n != 0 {
				t.Errorf("err = %v, %d opens; want exit status 2 and no open", err, n)
			}
		})
	}
}

func TestSourceErrorsAreReturned(t *testing.T) {
	src := reporttest.Demo()
	src.Err = errors.New("database unavailable")
	var n int
	err := Energy(context.Background(), &bytes.Buffer{}, opens(src, &n), demoQuery(parsable, db.DimUser), EnergyFactors{}, zerolog.Nop())
	if err == nil || err.Error() != "database unavailable" {
		t.Errorf("err = %v, want the source's error", err)
	}
	open := func() (Source, func(), error) { return nil, nil, errors.New("no database") }
	if err := Usage(context.Background(), &bytes.Buffer{}, open, demoQuery(parsable, db.DimUser)); err == nil || err.Error() != "no database" {
		t.Errorf("err = %v, want the opener's error", err)
	}
}

func TestStaleRollupsWarn(t *testing.T) {
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{reporttest.Demo(), ""},
		{reporttest.Stale{Source: reporttest.Demo(), RolledUp: reporttest.DemoStart.Add(time.Hour), Activity: reporttest.DemoEnd},
			"the report rollups reach 2026-11-20 23:00 but GPUs were in use until 2026-11-21 03:00: numbers after that are missing until `strata report refresh` runs"},
		{reporttest.Stale{Source: reporttest.Demo(), Activity: reporttest.DemoEnd.Add(time.Hour)},
			"the report rollups reach nothing yet but GPUs were in use until 2026-11-21 03:00: numbers after that are missing until `strata report refresh` runs"},
		{reporttest.Stale{Source: reporttest.Demo(), RolledUp: reporttest.DemoEnd.Add(-10 * time.Minute), Activity: reporttest.DemoEnd}, ""},
	} {
		var log bytes.Buffer
		var n int
		err := Energy(context.Background(), &bytes.Buffer{}, opens(tc.src, &n), demoQuery(parsable, db.DimUser), EnergyFactors{}, zerolog.New(&log))
		if err != nil {
			t.Fatal(err)
		}
		if got := Staleness(context.Background(), tc.src, reporttest.DemoEnd, time.UTC); got != tc.want {
			t.Errorf("Staleness = %q, want %q", got, tc.want)
		}
		if tc.want != "" && !strings.Contains(log.String(), `"level":"warn","message":"`+tc.want) ||
			tc.want == "" && log.Len() > 0 {
			t.Errorf("log = %q, want the warning %q", log.String(), tc.want)
		}
	}
}

type refresher struct {
	reporttest.Source
	from, to time.Time
	idle     float64
}

func (r *refresher) RefreshReportRollups(_ context.Context, from, to time.Time, idlePct float64) (int64, error) {
	r.from, r.to, r.idle = from, to, idlePct
	return 42, nil
}

func TestRefresh(t *testing.T) {
	r := &refresher{}
	var log bytes.Buffer
	open := func() (Source, func(), error) { return r, func() {}, nil }
	if err := Refresh(context.Background(), open, reporttest.DemoStart, reporttest.DemoEnd, 5, zerolog.New(&log)); err != nil {
		t.Fatal(err)
	}
	if !r.from.Equal(reporttest.DemoStart) || !r.to.Equal(reporttest.DemoEnd) || r.idle != 5 || !strings.Contains(log.String(), `"rows":42`) {
		t.Errorf("refreshed %v..%v idle %v; log %s", r.from, r.to, r.idle, log.String())
	}
	var n int
	err := Refresh(context.Background(), opens(reporttest.Demo(), &n), reporttest.DemoStart, reporttest.DemoEnd, 5, zerolog.Nop())
	if err == nil || err.Error() != "report refresh: this source cannot rebuild rollups" {
		t.Errorf("err = %v for a source without rollups", err)
	}
}
