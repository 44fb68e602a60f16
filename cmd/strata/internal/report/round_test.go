package report

import (
	"bytes"
	"context"
	"strings"
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

// TestJSONIsRounded (issue 17): the --json documents (and so the web API,
// which builds them with the same functions) carry kWh to 3 decimals,
// GPU-hours and money to 2, percentages to 1, joules and seconds whole;
// the field names are unchanged.
func TestJSONIsRounded(t *testing.T) {
	src := &reporttest.Source{
		Energy: map[string][]db.EnergyRow{"user": {{User: "alice", Jobs: 1, GPUSeconds: 1234.5678,
			EnergyJ: 161803.39887, UtilGPU: 87.54321, IdleGPUSeconds: 12.3456, IdleEnergyJ: 2718.28}}},
		Usage: map[string][]db.UsageRow{"user": {{User: "alice", Jobs: 1, GPUSeconds: 1234.5678, Completed: 1,
			MeanWaitSec: 61.49, MaxWaitSec: 61.5, MeanJCTSec: 3599.999}}},
	}
	open := func() (Source, func(), error) { return src, func() {}, nil }
	q := Query{Filter: db.ReportFilter{From: reporttest.DemoStart, To: reporttest.DemoEnd}, By: []db.ReportDim{db.DimUser},
		Mode: OutputMode{JSON: true}, Loc: time.UTC}
	var energy, usage bytes.Buffer
	f := EnergyFactors{CostPerKWh: 0.3, CO2KgPerKWh: 0.35}
	if err := Energy(context.Background(), &energy, open, q, f, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if err := Usage(context.Background(), &usage, open, q); err != nil {
		t.Fatal(err)
	}
	rows := func(doc string) string { return doc[strings.Index(doc, `"rows"`):] }
	wantEnergy := `"rows": [
    {
      "user": "alice",
      "jobs": 1,
      "gpu_seconds": 1235,
      "energy_j": 161803,
      "util_gpu_pct": 87.5,
      "idle_gpu_seconds": 12,
      "idle_energy_j": 2718,
      "gpu_hours": 0.34,
      "energy_kwh": 0.045,
      "idle_gpu_hours": 0,
      "idle_energy_kwh": 0.001,
      "idle_energy_pct": 1.7,
      "cost": 0.01,
      "co2_kg": 0.016
    }
  ]
}
`
	if d := cmp.Diff(wantEnergy, rows(energy.String())); d != "" {
		t.Errorf("energy JSON (-want +got):\n%s", d)
	}
	wantUsage := `"rows": [
    {
      "user": "alice",
      "jobs": 1,
      "gpu_seconds": 1235,
      "completed": 1,
      "mean_wait_seconds": 61,
      "max_wait_seconds": 62,
      "mean_jct_seconds": 3600,
      "gpu_hours": 0.34
    }
  ]
}
`
	if d := cmp.Diff(wantUsage, rows(usage.String())); d != "" {
		t.Errorf("usage JSON (-want +got):\n%s", d)
	}
	// The rows printed as a table are not rounded twice (the table's own
	// formats apply to the raw values).
	if src.Energy["user"][0].EnergyJ != 161803.39887 {
		t.Errorf("rounding changed the source's rows")
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
