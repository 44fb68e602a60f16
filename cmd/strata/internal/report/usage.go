package report

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/db"
)

// UsageOut is one printed usage row.
type UsageOut struct {
	db.UsageRow
	GPUHours float64 `json:"gpu_hours"`
}

// UsageOutputs sorts rows (most GPU time first) and derives GPU-hours.
func UsageOutputs(rows []db.UsageRow) []UsageOut {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.GPUSeconds != b.GPUSeconds {
			return a.GPUSeconds > b.GPUSeconds
		}
		return a.User+"\x00"+a.Account+"\x00"+a.Partition < b.User+"\x00"+b.Account+"\x00"+b.Partition
	})
	out := make([]UsageOut, len(rows))
	for i, r := range rows {
		out[i] = UsageOut{UsageRow: r, GPUHours: r.GPUSeconds / 3600}
	}
	return out
}

// FmtDuration prints seconds as Slurm does: [D-]HH:MM:SS (term.Duration,
// the one duration format of Strata's output).
func FmtDuration(sec float64) string {
	return term.Duration(time.Duration(math.Round(sec)) * time.Second)
}

// usageFields are the --format fields of `report usage`.
func usageFields() []Field[UsageOut] {
	return []Field[UsageOut]{
		{"User", "User", func(r UsageOut) string { return r.User }},
		{"Account", "Account", func(r UsageOut) string { return r.Account }},
		{"Partition", "Partition", func(r UsageOut) string { return r.Partition }},
		{"Jobs", "Jobs", func(r UsageOut) string { return strconv.Itoa(r.Jobs) }},
		{"GPUHours", "GPUh", func(r UsageOut) string { return FmtGPUh(r.GPUHours) }},
		{"Completed", "Completed", func(r UsageOut) string { return strconv.Itoa(r.Completed) }},
		{"MeanWait", "MeanWait", func(r UsageOut) string { return FmtDuration(r.MeanWaitSec) }},
		{"MaxWait", "MaxWait", func(r UsageOut) string { return FmtDuration(r.MaxWaitSec) }},
		{"MeanJCT", "MeanJCT", func(r UsageOut) string { return FmtDuration(r.MeanJCTSec) }},
		{"MeanWaitRaw", "MeanWaitRaw(s)", func(r UsageOut) string { return FmtFloat(r.MeanWaitSec, 0) }},
		{"MeanJCTRaw", "MeanJCTRaw(s)", func(r UsageOut) string { return FmtFloat(r.MeanJCTSec, 0) }},
	}
}

func usageDefaults(by []db.ReportDim) []string {
	var names []string
	for _, d := range by {
		names = append(names, DimField(d))
	}
	return append(names, "Jobs", "GPUHours", "Completed", "MeanWait", "MaxWait", "MeanJCT")
}

// DecisionFields are the --format fields of `report decisions`.
func DecisionFields(loc *time.Location) []Field[db.DecisionRow] {
	ts := func(t time.Time) string { return FmtBucket(t, loc, "2006-01-02T15:04:05") }
	return []Field[db.DecisionRow]{
		{"Action", "Action", func(r db.DecisionRow) string { return r.Action }},
		{"Reason", "Reason", func(r db.DecisionRow) string { return r.Reason }},
		{"Decisions", "Decisions", func(r db.DecisionRow) string { return strconv.Itoa(r.Decisions) }},
		{"Applied", "Applied", func(r db.DecisionRow) string { return strconv.Itoa(r.Applied) }},
		{"Jobs", "Jobs", func(r db.DecisionRow) string { return strconv.Itoa(r.Jobs) }},
		{"Cycles", "Cycles", func(r db.DecisionRow) string { return strconv.Itoa(r.Cycles) }},
		{"First", "First", func(r db.DecisionRow) string { return ts(r.First) }},
		{"Last", "Last", func(r db.DecisionRow) string { return ts(r.Last) }},
	}
}

// DecisionDefaults is the default --format of `report decisions`.
var DecisionDefaults = []string{"Action", "Reason", "Decisions", "Applied", "Jobs", "Cycles", "First", "Last"}
