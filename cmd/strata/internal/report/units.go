package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// energyUnits are --units: the unit of the energy columns (Energy,
// IdleEnergy), joules per unit and decimals. K and M are sacct's spelling.
var energyUnits = map[string]struct {
	name     string
	joules   float64
	decimals int
}{
	"j": {"J", 1, 0}, "wh": {"Wh", 3600, 1}, "kwh": {"kWh", 3.6e6, 3}, "k": {"kWh", 3.6e6, 3},
	"mwh": {"MWh", 3.6e9, 6}, "m": {"MWh", 3.6e9, 6},
}

// timeFormats are sreport's -t: how GPU time is shown.
var timeFormats = map[string]struct {
	header   string
	seconds  float64
	decimals int
}{
	"hours": {"GPUh", 3600, 2}, "minutes": {"GPUmin", 60, 0}, "seconds": {"GPUsec", 1, 0},
}

// checkUnits validates --units and -t (hours, minutes, seconds, percent,
// or one of the first three with /percent, as sreport).
func checkUnits(m OutputMode) error {
	if _, ok := energyUnits[strings.ToLower(m.Units)]; m.Units != "" && !ok {
		return fmt.Errorf("--units %q: want J, Wh, kWh (K) or MWh (M)", m.Units)
	}
	if m.Time == "" {
		return nil
	}
	base, pct := timeFormat(m.Time)
	if _, ok := timeFormats[base]; !ok && !(base == "" && pct) {
		return fmt.Errorf("-t %q: want hours, minutes, seconds, percent, or hours/percent (as sreport)", m.Time)
	}
	return nil
}

// timeFormat splits -t into its time unit ("" for percent alone) and
// whether percentages are shown.
func timeFormat(t string) (base string, pct bool) {
	t = strings.ToLower(t)
	if t == "percent" {
		return "", true
	}
	base, rest, ok := strings.Cut(t, "/")
	return base, ok && rest == "percent"
}

// gpuTimeValue formats GPU seconds as -t asks; total is the rows' total
// for percentages.
func gpuTimeValue(m OutputMode, sec, total float64) string {
	base, pct := timeFormat(m.Time)
	if m.Time == "" {
		base = "hours"
	}
	share := 0.0
	if total > 0 {
		share = 100 * sec / total
	}
	f, ok := timeFormats[base]
	switch {
	case !ok:
		return FmtPct(share)
	case pct:
		return FmtFloat(sec/f.seconds, f.decimals) + "(" + FmtPct(share) + "%)"
	}
	return FmtFloat(sec/f.seconds, f.decimals)
}

func gpuTimeHeader(m OutputMode, idle bool) string {
	base, pct := timeFormat(m.Time)
	if m.Time == "" {
		base = "hours"
	}
	h := "GPU(%)"
	if f, ok := timeFormats[base]; ok {
		h = f.header
		if pct {
			h += "(%)"
		}
	}
	if idle {
		return "Idle" + h
	}
	return h
}

// withUnits re-labels the energy and GPU-time fields of an energy report
// for --units and -t (the JSON keeps joules, seconds and kWh).
func withUnits(fields []Field[EnergyOut], m OutputMode, rows []EnergyOut) []Field[EnergyOut] {
	var gpuTotal, idleTotal float64
	for _, r := range rows {
		gpuTotal += r.GPUSeconds
		idleTotal += r.IdleGPUSeconds
	}
	u, hasUnit := energyUnits[strings.ToLower(m.Units)]
	out := make([]Field[EnergyOut], len(fields))
	copy(out, fields)
	for i, f := range out {
		switch f.Name {
		case "Energy", "IdleEnergy":
			if !hasUnit {
				continue
			}
			idle := f.Name == "IdleEnergy"
			out[i].Header = strings.TrimSuffix(f.Name, "Energy") + "Energy(" + u.name + ")"
			out[i].Value = func(r EnergyOut) string {
				j := r.EnergyJ
				if idle {
					j = r.IdleEnergyJ
				}
				return FmtFloat(j/u.joules, u.decimals)
			}
		case "GPUHours":
			out[i].Header = gpuTimeHeader(m, false)
			out[i].Value = func(r EnergyOut) string { return gpuTimeValue(m, r.GPUSeconds, gpuTotal) }
		case "IdleGPUHours":
			out[i].Header = gpuTimeHeader(m, true)
			out[i].Value = func(r EnergyOut) string { return gpuTimeValue(m, r.IdleGPUSeconds, idleTotal) }
		}
	}
	return out
}

// usageWithUnits applies -t to the GPU time of a usage report.
func usageWithUnits(fields []Field[UsageOut], m OutputMode, rows []UsageOut) []Field[UsageOut] {
	var total float64
	for _, r := range rows {
		total += r.GPUSeconds
	}
	out := make([]Field[UsageOut], len(fields))
	copy(out, fields)
	for i, f := range out {
		if f.Name == "GPUHours" {
			out[i].Header = gpuTimeHeader(m, false)
			out[i].Value = func(r UsageOut) string { return gpuTimeValue(m, r.GPUSeconds, total) }
		}
	}
	return out
}

// IsFormatHelp reports whether --format asks for the list of fields
// (-o help, as sacct --helpformat).
func IsFormatHelp(format string) bool { return strings.EqualFold(strings.TrimSpace(format), "help") }

// WriteFieldHelp lists the fields --format accepts, with their headers.
func WriteFieldHelp[R any](w io.Writer, all []Field[R]) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tHEADER")
	for _, f := range all {
		fmt.Fprintf(tw, "%s\t%s\n", f.Name, f.Header)
	}
	return tw.Flush()
}
