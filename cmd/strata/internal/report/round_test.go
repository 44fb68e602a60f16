package report

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		dec  int
		want float64
	}{{0.0444999, 3, 0.044}, {0.0445, 3, 0.045}, {2240428.4, 0, 2240428}, {87.54999, 1, 87.5}, {-0.0001, 2, 0}, {1.005, 2, 1}} {
		if got := Round(tc.v, tc.dec); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.v, tc.dec, got, tc.want)
		}
	}
}

// TestJSONUnroundedTableAgrees (issue 26.7; issue 17 had rounded the
// JSON): the --json documents (and the web API, built by the same
// functions) carry the figures unrounded, and the table prints each rounded
// half away from zero, as Round does, so both tell the same: 450 GPU-seconds
// are 0.125 GPU-hours in JSON and 0.13 in the table (strconv alone printed
// 0.12), an idle share of 0.25 % prints 0.3.
func TestJSONUnroundedTableAgrees(t *testing.T) {
	src := &reporttest.Source{
		Energy: map[string][]db.EnergyRow{"user": {{User: "alice", Jobs: 1, GPUSeconds: 450,
			EnergyJ: 400, UtilGPU: 87.54321, IdleGPUSeconds: 12.3456, IdleEnergyJ: 1}}},
		Usage: map[string][]db.UsageRow{"user": {{User: "alice", Jobs: 1, GPUSeconds: 450, Completed: 1,
			MeanWaitSec: 61.49, MaxWaitSec: 61.5, MeanJCTSec: 3599.999}}},
	}
	open := func() (Source, func(), error) { return src, func() {}, nil }
	q := Query{Filter: db.ReportFilter{From: reporttest.DemoStart, To: reporttest.DemoEnd}, By: []db.ReportDim{db.DimUser},
		Mode: OutputMode{JSON: true}, Loc: time.UTC}
	var energy, usage, table bytes.Buffer
	f := EnergyFactors{CostPerKWh: 0.3, CO2KgPerKWh: 0.35}
	if err := Energy(context.Background(), &energy, open, q, f, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if err := Usage(context.Background(), &usage, open, q); err != nil {
		t.Fatal(err)
	}
	var doc EnergyDoc
	if err := json.Unmarshal(energy.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var udoc UsageDoc
	if err := json.Unmarshal(usage.Bytes(), &udoc); err != nil {
		t.Fatal(err)
	}
	r := doc.Rows[0]
	type figures struct{ GPUh, MeanUtil, IdlePct, MaxWait float64 }
	if d := cmp.Diff(figures{0.125, 87.54321, 0.25, 61.5}, figures{r.GPUHours, r.UtilGPU, r.IdlePct, udoc.Rows[0].MaxWaitSec}); d != "" {
		t.Errorf("JSON figures (-want +got):\n%s", d)
	}
	q.Mode = OutputMode{Parsable: true, Format: "GPUHours,MeanUtil,IdlePct,EnergyRaw"}
	if err := Energy(context.Background(), &table, open, q, f, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("GPUh|MeanUtil(%)|Idle(%)|EnergyRaw(J)\n0.13|87.5|0.3|400\n", table.String()); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
	for _, v := range []float64{r.GPUHours, r.UtilGPU, r.IdlePct} {
		if got, want := FmtFloat(v, 1), strconv.FormatFloat(Round(v, 1), 'f', 1, 64); got != want {
			t.Errorf("FmtFloat(%v, 1) = %s, Round gives %s", v, got, want)
		}
	}
}

func TestRoundJob(t *testing.T) {
	jr := db.JobReport{Job: 7, Totals: db.EnergyRow{EnergyJ: 10.6, UtilGPU: 33.333},
		Series: []db.JobPoint{{UtilGPU: 99.96, PowerW: 251.249}}}
	got := RoundJob(jr)
	want := db.JobReport{Job: 7, Totals: db.EnergyRow{EnergyJ: 11, UtilGPU: 33.3},
		Series: []db.JobPoint{{UtilGPU: 100, PowerW: 251.2}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("RoundJob (-want +got):\n%s", d)
	}
	if jr.Series[0].PowerW != 251.249 {
		t.Errorf("RoundJob changed its argument's series")
	}
}
