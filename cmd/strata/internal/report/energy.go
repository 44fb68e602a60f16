package report

import (
	"sort"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/db"
)

// EnergyFactors turn kWh into money and CO2 (zero: not shown).
type EnergyFactors struct {
	CostPerKWh  float64 `json:"cost_per_kwh,omitempty"`
	Currency    string  `json:"currency,omitempty"`
	CO2KgPerKWh float64 `json:"co2_kg_per_kwh,omitempty"`
}

// EnergyOut is one printed energy row: the database's row plus the derived
// human units. The CLI (--json), the web tables and the web JSON share it, so
// the numbers they show are the same.
type EnergyOut struct {
	db.EnergyRow
	GPUHours      float64  `json:"gpu_hours"`
	EnergyKWh     float64  `json:"energy_kwh"`
	IdleGPUHours  float64  `json:"idle_gpu_hours"`
	IdleEnergyKWh float64  `json:"idle_energy_kwh"`
	IdlePct       float64  `json:"idle_energy_pct"`
	Cost          *float64 `json:"cost,omitempty"`
	CO2Kg         *float64 `json:"co2_kg,omitempty"`
}

const joulesPerKWh = 3.6e6

// EnergyOutputs derives the human units of rows.
func EnergyOutputs(rows []db.EnergyRow, f EnergyFactors) []EnergyOut {
	out := make([]EnergyOut, len(rows))
	for i, r := range rows {
		o := EnergyOut{EnergyRow: r,
			GPUHours: r.GPUSeconds / 3600, EnergyKWh: r.EnergyJ / joulesPerKWh,
			IdleGPUHours: r.IdleGPUSeconds / 3600, IdleEnergyKWh: r.IdleEnergyJ / joulesPerKWh}
		if r.EnergyJ > 0 {
			o.IdlePct = 100 * r.IdleEnergyJ / r.EnergyJ
		}
		if f.CostPerKWh > 0 {
			c := o.EnergyKWh * f.CostPerKWh
			o.Cost = &c
		}
		if f.CO2KgPerKWh > 0 {
			c := o.EnergyKWh * f.CO2KgPerKWh
			o.CO2Kg = &c
		}
		out[i] = o
	}
	return out
}

// SortEnergyRows orders rows by time bucket, then by energy (largest first),
// then by their keys, so output is deterministic.
func SortEnergyRows(rows []db.EnergyRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if !a.Bucket.Equal(b.Bucket) {
			return a.Bucket.Before(b.Bucket)
		}
		if a.EnergyJ != b.EnergyJ {
			return a.EnergyJ > b.EnergyJ
		}
		return energyKey(a) < energyKey(b)
	})
}

func energyKey(r db.EnergyRow) string {
	return strconv.FormatInt(r.Job, 10) + "\x00" + r.User + "\x00" + r.Account + "\x00" + r.Partition + "\x00" + r.Node
}

// Number formats shared by the CLI and the web page: GPU-hours, kWh, joules,
// percentages and money.
func FmtGPUh(v float64) string  { return FmtFloat(v, 2) }
func FmtKWh(v float64) string   { return FmtFloat(v, 3) }
func fmtJ(v float64) string     { return FmtFloat(v, 0) }
func FmtPct(v float64) string   { return FmtFloat(v, 1) }
func fmtMoney(v float64) string { return FmtFloat(v, 2) }

func fmtOpt(v *float64, format func(float64) string) string {
	if v == nil {
		return ""
	}
	return format(*v)
}

// EnergyFields are the --format fields of `report energy`.
func EnergyFields(f EnergyFactors, loc *time.Location) []Field[EnergyOut] {
	cur := f.Currency
	if cur == "" {
		cur = "EUR"
	}
	return []Field[EnergyOut]{
		{"Job", "JobID", func(r EnergyOut) string { return fmtJobID(r.Job) }},
		{"JobName", "JobName", func(r EnergyOut) string { return r.JobName }},
		{"User", "User", func(r EnergyOut) string { return r.User }},
		{"Account", "Account", func(r EnergyOut) string { return r.Account }},
		{"Partition", "Partition", func(r EnergyOut) string { return r.Partition }},
		{"Node", "Node", func(r EnergyOut) string { return r.Node }},
		{"Day", "Day", func(r EnergyOut) string { return FmtBucket(r.Bucket, loc, "2006-01-02") }},
		{"Hour", "Hour", func(r EnergyOut) string { return FmtBucket(r.Bucket, loc, "2006-01-02T15:04") }},
		{"Jobs", "Jobs", func(r EnergyOut) string { return strconv.Itoa(r.Jobs) }},
		{"GPUHours", "GPUh", func(r EnergyOut) string { return FmtGPUh(r.GPUHours) }},
		{"Energy", "Energy(kWh)", func(r EnergyOut) string { return FmtKWh(r.EnergyKWh) }},
		{"EnergyRaw", "EnergyRaw(J)", func(r EnergyOut) string { return fmtJ(r.EnergyJ) }},
		{"MeanUtil", "MeanUtil(%)", func(r EnergyOut) string { return FmtPct(r.UtilGPU) }},
		{"IdleGPUHours", "IdleGPUh", func(r EnergyOut) string { return FmtGPUh(r.IdleGPUHours) }},
		{"IdleEnergy", "IdleEnergy(kWh)", func(r EnergyOut) string { return FmtKWh(r.IdleEnergyKWh) }},
		{"IdleEnergyRaw", "IdleEnergyRaw(J)", func(r EnergyOut) string { return fmtJ(r.IdleEnergyJ) }},
		{"IdlePct", "Idle(%)", func(r EnergyOut) string { return FmtPct(r.IdlePct) }},
		{"Cost", "Cost(" + cur + ")", func(r EnergyOut) string { return fmtOpt(r.Cost, fmtMoney) }},
		{"CO2", "CO2(kg)", func(r EnergyOut) string { return fmtOpt(r.CO2Kg, FmtKWh) }},
	}
}

// energyDefaults is the default --format: the grouping fields, then the
// figures (cost and CO2 only when their factors are configured).
func energyDefaults(by []db.ReportDim, f EnergyFactors) []string {
	var names []string
	for _, d := range by {
		switch d {
		case db.DimJob:
			names = append(names, "Job", "JobName", "User")
		default:
			names = append(names, DimField(d))
		}
	}
	names = append(names, "Jobs", "GPUHours", "Energy", "MeanUtil", "IdleEnergy", "IdlePct")
	if f.CostPerKWh > 0 {
		names = append(names, "Cost")
	}
	if f.CO2KgPerKWh > 0 {
		names = append(names, "CO2")
	}
	return names
}

// DimField is the field that shows grouping dimension d.
func DimField(d db.ReportDim) string {
	switch d {
	case db.DimUser:
		return "User"
	case db.DimAccount:
		return "Account"
	case db.DimPartition:
		return "Partition"
	case db.DimNode:
		return "Node"
	case db.DimDay:
		return "Day"
	case db.DimHour:
		return "Hour"
	}
	return "Job"
}

func fmtJobID(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// FmtBucket prints t in loc with layout; the zero time prints empty.
func FmtBucket(t time.Time, loc *time.Location, layout string) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(layout)
}
