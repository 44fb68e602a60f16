package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/db"
)

// usageOut is one printed usage row.
type usageOut struct {
	db.UsageRow
	GPUHours float64 `json:"gpu_hours"`
}

func usageOutputs(rows []db.UsageRow) []usageOut {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.GPUSeconds != b.GPUSeconds {
			return a.GPUSeconds > b.GPUSeconds
		}
		return a.User+"\x00"+a.Account+"\x00"+a.Partition < b.User+"\x00"+b.Account+"\x00"+b.Partition
	})
	out := make([]usageOut, len(rows))
	for i, r := range rows {
		out[i] = usageOut{UsageRow: r, GPUHours: r.GPUSeconds / 3600}
	}
	return out
}

// fmtDuration prints seconds as Slurm does: [D-]HH:MM:SS.
func fmtDuration(sec float64) string {
	d := time.Duration(sec+0.5) * time.Second
	if d < 0 {
		d = 0
	}
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, s)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
}

// usageFields are the --format fields of `report usage`.
func usageFields() []field[usageOut] {
	return []field[usageOut]{
		{"User", "User", func(r usageOut) string { return r.User }},
		{"Account", "Account", func(r usageOut) string { return r.Account }},
		{"Partition", "Partition", func(r usageOut) string { return r.Partition }},
		{"Jobs", "Jobs", func(r usageOut) string { return strconv.Itoa(r.Jobs) }},
		{"GPUHours", "GPUh", func(r usageOut) string { return fmtGPUh(r.GPUHours) }},
		{"Completed", "Completed", func(r usageOut) string { return strconv.Itoa(r.Completed) }},
		{"MeanWait", "MeanWait", func(r usageOut) string { return fmtDuration(r.MeanWaitSec) }},
		{"MaxWait", "MaxWait", func(r usageOut) string { return fmtDuration(r.MaxWaitSec) }},
		{"MeanJCT", "MeanJCT", func(r usageOut) string { return fmtDuration(r.MeanJCTSec) }},
		{"MeanWaitRaw", "MeanWaitRaw(s)", func(r usageOut) string { return fmtFloat(r.MeanWaitSec, 0) }},
		{"MeanJCTRaw", "MeanJCTRaw(s)", func(r usageOut) string { return fmtFloat(r.MeanJCTSec, 0) }},
	}
}

func usageDefaults(by []db.ReportDim) []string {
	var names []string
	for _, d := range by {
		names = append(names, dimField(d))
	}
	return append(names, "Jobs", "GPUHours", "Completed", "MeanWait", "MaxWait", "MeanJCT")
}

// decisionFields are the --format fields of `report decisions`.
func decisionFields(loc *time.Location) []field[db.DecisionRow] {
	ts := func(t time.Time) string { return fmtBucket(t, loc, "2006-01-02T15:04:05") }
	return []field[db.DecisionRow]{
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

var decisionDefaults = []string{"Action", "Reason", "Decisions", "Applied", "Jobs", "Cycles", "First", "Last"}
