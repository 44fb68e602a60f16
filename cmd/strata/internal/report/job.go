package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
)

// Thresholds of the job view's advice (docs/reports.md, "The job view"),
// as Princeton's jobstats gives it: one line, the first that applies.
const (
	// AdviceIdleGPUPct: a GPU whose mean utilization is below it was
	// allocated but unused (the job asked for more GPUs than it used).
	AdviceIdleGPUPct = 5.0
	// AdviceLowUtilPct: a mean utilization below it asks for fewer GPUs
	// or a look at the input pipeline.
	AdviceLowUtilPct = 25.0
	// AdviceMemFrac: a memory peak below this share of every GPU's memory
	// means a smaller GPU type would do.
	AdviceMemFrac = 0.25
	// AdviceIdleSharePct: GPUs idle (below db.DefaultIdleUtilPct) this
	// share of their time point at waits (I/O, CPU stages, communication).
	AdviceIdleSharePct = 30.0
)

// JobView is the job view's document (`report job --json`, /api/job/ID):
// the job's data and its advice.
type JobView struct {
	db.JobReport
	// IdlePct is the share of the job's GPU time below the idle
	// threshold.
	IdlePct float64 `json:"idle_pct"`
	// Advice is one line of advice ("" without telemetry).
	Advice string `json:"advice"`
	// Telemetry: GPU assignments were recorded for the job.
	Telemetry bool `json:"telemetry"`
}

// NewJobView rounds jr for JSON (RoundJob) and adds its idle share and
// advice.
func NewJobView(jr db.JobReport) JobView {
	v := JobView{JobReport: RoundJob(jr), Advice: Advice(jr), Telemetry: len(jr.GPUs) > 0}
	if jr.Totals.GPUSeconds > 0 {
		v.IdlePct = Round(100*jr.Totals.IdleGPUSeconds/jr.Totals.GPUSeconds, decPct)
	}
	return v
}

// Advice is the job view's line of advice: the first of unused GPUs, low
// utilization, a small memory peak, a large idle share that applies, else
// a line saying the GPUs were used well; "" when no telemetry was
// collected.
func Advice(jr db.JobReport) string {
	t := jr.Totals
	if len(jr.PerGPU) == 0 || t.GPUSeconds <= 0 {
		return ""
	}
	var unused []string
	var memPeak, memTotal int64
	memKnown := true
	for _, g := range jr.PerGPU {
		if g.UtilGPU < AdviceIdleGPUPct {
			unused = append(unused, g.Host+" "+shortUUID(g.UUID))
		}
		memPeak = max(memPeak, g.MemPeakBytes)
		if g.MemTotalBytes <= 0 {
			memKnown = false
		}
		if memTotal == 0 || (g.MemTotalBytes > 0 && g.MemTotalBytes < memTotal) {
			memTotal = g.MemTotalBytes
		}
	}
	idle := 100 * t.IdleGPUSeconds / t.GPUSeconds
	n := len(jr.PerGPU)
	switch {
	case len(unused) > 0 && len(unused) < n:
		return fmt.Sprintf("%d of %d GPUs were unused (utilization below %s %%: %s): ask for %d GPUs, or check that the code uses them all",
			len(unused), n, FmtFloat(AdviceIdleGPUPct, 0), strings.Join(unused, ", "), n-len(unused))
	case t.UtilGPU < AdviceLowUtilPct:
		return fmt.Sprintf("GPU utilization %s %%: ask for fewer GPUs or check the input pipeline (data loading, CPU preprocessing)",
			FmtFloat(t.UtilGPU, 0))
	case memKnown && memTotal > 0 && float64(memPeak) < AdviceMemFrac*float64(memTotal):
		return fmt.Sprintf("GPU memory peak %s of %s: a smaller GPU type would do", fmtBytes(memPeak), fmtBytes(memTotal))
	case idle > AdviceIdleSharePct:
		return fmt.Sprintf("GPUs idle %s %% of their time: look for waits between steps (I/O, CPU stages, communication, checkpoints)",
			FmtFloat(idle, 0))
	}
	return fmt.Sprintf("GPU utilization %s %%, idle %s %% of the time: the GPUs were used well", FmtFloat(t.UtilGPU, 0), FmtFloat(idle, 0))
}

// shortUUID is a GPU UUID cut to its last 8 characters (after "…") when
// longer than 16: UUIDs of one vendor share their first characters.
func shortUUID(u string) string {
	if r := []rune(u); len(r) > 16 {
		return "…" + string(r[len(r)-8:])
	}
	return u
}

// fmtBytes is a memory size in GB (10^9 bytes, as nvidia-smi's GiB is
// close enough for advice), one decimal below 10 GB.
func fmtBytes(b int64) string {
	gb := float64(b) / 1e9
	if gb < 10 {
		return FmtFloat(gb, 1) + " GB"
	}
	return FmtFloat(gb, 0) + " GB"
}

// JobOptions are how `report job` prints: JSON or text, and the time zone.
type JobOptions struct {
	JSON bool
	Loc  *time.Location
}

// Job prints the job view of id (jobstats-like: facts, energy, idle share,
// each GPU's utilization, memory and power, their utilization over time,
// the advice, the planner's decisions) to w. A job that is unknown, or
// outside what the database role may read, is a NotFoundError.
func Job(ctx context.Context, w io.Writer, open Opener, id int64, o JobOptions) error {
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	jr, err := src.JobReport(ctx, id, db.Scope{})
	if errors.Is(err, db.ErrNotFound) {
		return &NotFoundError{fmt.Errorf("report job: no job %d: no job record, GPU assignment or planner decision (check the id)", id)}
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return WriteJSON(w, NewJobView(jr))
	}
	return writeJobText(w, jr, o)
}
