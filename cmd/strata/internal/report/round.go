package report

import (
	"math"

	"github.com/strata-hpc/strata/db"
)

// Tables (the CLI's and the web page's) print numbers at the precision of
// the measurement: joules and seconds whole, kWh and kg CO2 to 3 decimals,
// GPU-hours and money to 2, percentages and watts to 1, each rounded by
// Round (FmtFloat). The energy and usage JSON documents are unrounded; a
// job page's data (RoundJob) is rounded for its charts.
const (
	decRaw   = 0 // joules, seconds
	decKWh   = 3 // kWh, kg CO2
	decHours = 2 // GPU-hours, money
	decPct   = 1 // percentages, watts
)

// Round rounds v to decimals places (half away from zero); it never
// returns negative zero.
func Round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	r := math.Round(v*p) / p
	if r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return math.Abs(r)
	}
	return r
}

func roundPtr(v *float64, decimals int) *float64 {
	if v == nil {
		return nil
	}
	r := Round(*v, decimals)
	return &r
}

// roundEnergyRow rounds a database energy row's raw figures.
func roundEnergyRow(r db.EnergyRow) db.EnergyRow {
	r.GPUSeconds = Round(r.GPUSeconds, decRaw)
	r.EnergyJ = Round(r.EnergyJ, decRaw)
	r.UtilGPU = Round(r.UtilGPU, decPct)
	r.IdleGPUSeconds = Round(r.IdleGPUSeconds, decRaw)
	r.IdleEnergyJ = Round(r.IdleEnergyJ, decRaw)
	return r
}

// RoundJob returns a copy of a job page's data rounded for JSON: its
// totals as an energy row, utilization and power of its series to 1 decimal.
func RoundJob(jr db.JobReport) db.JobReport {
	jr.Totals = roundEnergyRow(jr.Totals)
	if jr.Series != nil {
		s := make([]db.JobPoint, len(jr.Series))
		for i, p := range jr.Series {
			p.UtilGPU, p.PowerW = Round(p.UtilGPU, decPct), Round(p.PowerW, decPct)
			s[i] = p
		}
		jr.Series = s
	}
	return jr
}

// NewEnergyDoc is the JSON document of energy rows, unrounded: a program
// reading it gets the figures as computed, and the table shows them rounded
// by FmtFloat (Round, half away from zero), so the two agree (issue 26.7).
func NewEnergyDoc(win Window, by []db.ReportDim, f EnergyFactors, rows []EnergyOut) EnergyDoc {
	if rows == nil {
		rows = []EnergyOut{}
	}
	return EnergyDoc{Window: win, By: by, Factors: f, Rows: rows}
}

// NewUsageDoc is the JSON document of usage rows, unrounded.
func NewUsageDoc(win Window, by []db.ReportDim, rows []UsageOut) UsageDoc {
	if rows == nil {
		rows = []UsageOut{}
	}
	return UsageDoc{Window: win, By: by, Rows: rows}
}
