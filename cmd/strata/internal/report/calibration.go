package report

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/calib"
)

// CalibrationSource is what the calibration report reads; *db.Store
// implements it.
type CalibrationSource interface {
	CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.CalibrationJob, error)
}

// CalibrationUsage and CalibrationDescription document `strata report
// calibration`.
const (
	CalibrationUsage       = "the speed factors per (model, GPU type) and the busy power per GPU type that finished jobs measured"
	CalibrationDescription = "Fits what `strata run` fits (planner/calib) to the jobs that completed in the window (-S/-E;\n" +
		"the daemon uses the last 30 days; -M one cluster): per (model, GPU type) the factor real /\n" +
		"modelled run time (median of the 20 most recent jobs, clipped to 0.25-4) with its job count,\n" +
		"whether it applies (at least 3 jobs) and the time model's error before and after it (median\n" +
		"|log2(real / modelled)|: 0 exact, 1 a factor of two); per GPU type the mean power of busy GPUs."
)

// CalibrationOut is one row of the calibration report: a speed factor
// (Kind "speed") or a GPU type's power (Kind "power").
type CalibrationOut struct {
	Kind    string `json:"kind"`
	Model   string `json:"model,omitempty"`
	GPUType string `json:"gpu_type"`
	// Jobs are the jobs in the window; Used those behind the figure.
	Jobs    int     `json:"jobs"`
	Used    int     `json:"used"`
	Applies bool    `json:"applies"`
	Factor  float64 `json:"factor,omitempty"`
	// ErrBefore and ErrAfter are the median |log2(real / modelled)|
	// without and with the factor.
	ErrBefore float64 `json:"err_before,omitempty"`
	ErrAfter  float64 `json:"err_after,omitempty"`
	Watts     float64 `json:"watts,omitempty"`
}

// Calibration prints the calibration the jobs that completed in the
// window support.
// An empty report also writes why it is empty and what to run on notes
// (stderr; its table keeps its header), and in its JSON as "note".
func Calibration(ctx context.Context, w, notes io.Writer, src CalibrationSource, f db.ReportFilter, m OutputMode) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if len(f.Clusters) > 1 {
		return fmt.Errorf("-M: the calibration report takes one cluster (the daemon calibrates each on its own)")
	}
	cluster := ""
	if len(f.Clusters) == 1 {
		cluster = f.Clusters[0]
	}
	var jobs []db.CalibrationJob
	since := f.From
	for {
		batch, err := src.CalibrationJobs(ctx, cluster, since, calibBatch)
		if err != nil {
			return fmt.Errorf("calibration report: %w", err)
		}
		for _, j := range batch {
			if j.End.Before(f.To) {
				jobs = append(jobs, j)
			}
			since = j.End
		}
		if len(batch) < calibBatch || !since.Before(f.To) {
			break
		}
	}
	out := CalibrationRows(jobs)
	note := ""
	if len(out) == 0 {
		note = fmt.Sprintf("no calibration from %s to %s: no job completed in the window after a decision of the planner "+
			"that named its GPU type. Calibration fits the jobs `strata run` decided on (shadow mode is enough; with "+
			"--database-url it stores its decisions and the ends of the runs slurmctld reports), and their GPUs' "+
			"energy from `strata collect`: let them run a while, or widen -S/-E (e.g. -S now-30days)",
			f.From.UTC().Format(time.RFC3339), f.To.UTC().Format(time.RFC3339))
	}
	if m.JSON {
		return WriteJSON(w, struct {
			Window Window           `json:"window"`
			Rows   []CalibrationOut `json:"rows"`
			Note   string           `json:"note,omitempty"`
		}{Window{f.From, f.To}, out, note})
	}
	if note != "" {
		if _, err := fmt.Fprintln(notes, "strata: "+note); err != nil {
			return err
		}
	}
	cols, err := SelectFields(calibrationFields(), m.Format,
		[]string{"kind", "model", "gputype", "jobs", "used", "applies", "factor", "errbefore", "errafter", "watts"})
	if err != nil {
		return err
	}
	return WriteTable(w, cols, out, m)
}

const calibBatch = 50000

// CalibrationRows fits the jobs as the daemon does (planner/calib's
// defaults) and lists every (model, GPU type) and GPU type with jobs,
// including those below the minimum count (Applies false): speed rows by
// model and GPU type, then power rows by GPU type.
func CalibrationRows(jobs []db.CalibrationJob) []CalibrationOut {
	in := make([]calib.Job, len(jobs))
	type key struct{ model, gpu string }
	ratios := map[key][]float64{}
	powerJobs := map[string]int{}
	for i, j := range jobs {
		in[i] = calib.Job{End: j.End, Model: j.Model, GPUType: j.GPUType,
			Modelled: time.Duration(j.ModelSeconds * float64(time.Second)), Real: time.Duration(j.RealSeconds * float64(time.Second)),
			BusyEnergyJ: j.BusyEnergyJ, BusyGPUSeconds: j.BusyGPUSeconds}
		gt := strings.ToLower(j.GPUType)
		if j.Model != "" && j.ModelSeconds > 0 && j.RealSeconds > 0 {
			k := key{j.Model, gt}
			ratios[k] = append(ratios[k], j.RealSeconds/j.ModelSeconds)
		}
		if j.BusyGPUSeconds > 0 {
			powerJobs[gt]++
		}
	}
	all := calib.Fit(in, calib.Config{MinJobs: 1})
	if all == nil {
		all = &planner.Calibration{}
	}
	var out []CalibrationOut
	for _, f := range all.Speed {
		rs := ratios[key{f.Model, f.GPUType}]
		out = append(out, CalibrationOut{Kind: "speed", Model: f.Model, GPUType: f.GPUType, Jobs: len(rs), Used: f.Jobs,
			Applies: len(rs) >= calib.DefaultMinJobs, Factor: f.Factor,
			ErrBefore: medianAbsLog2(rs, 1), ErrAfter: medianAbsLog2(rs, f.Factor)})
	}
	for _, p := range all.Power {
		n := powerJobs[p.GPUType]
		out = append(out, CalibrationOut{Kind: "power", GPUType: p.GPUType, Jobs: n, Used: p.Jobs,
			Applies: n >= calib.DefaultMinJobs, Watts: p.Watts})
	}
	slices.SortStableFunc(out, func(a, b CalibrationOut) int {
		return cmp.Or(-cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Model, b.Model), cmp.Compare(a.GPUType, b.GPUType))
	})
	return out
}

// medianAbsLog2 is the median |log2(r / factor)| over the ratios r.
func medianAbsLog2(rs []float64, factor float64) float64 {
	abs := make([]float64, len(rs))
	for i, r := range rs {
		abs[i] = math.Abs(math.Log2(r / factor))
	}
	slices.Sort(abs)
	return quantile(abs, 0.5)
}

func calibrationFields() []Field[CalibrationOut] {
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	speed := func(r CalibrationOut, v float64) string {
		if r.Kind != "speed" {
			return ""
		}
		return f2(v)
	}
	return []Field[CalibrationOut]{
		{Name: "kind", Header: "Kind", Value: func(r CalibrationOut) string { return r.Kind }},
		{Name: "model", Header: "Model", Value: func(r CalibrationOut) string { return r.Model }},
		{Name: "gputype", Header: "GPUType", Value: func(r CalibrationOut) string { return r.GPUType }},
		{Name: "jobs", Header: "Jobs", Value: func(r CalibrationOut) string { return strconv.Itoa(r.Jobs) }},
		{Name: "used", Header: "Used", Value: func(r CalibrationOut) string { return strconv.Itoa(r.Used) }},
		{Name: "applies", Header: "Applies", Value: func(r CalibrationOut) string { return map[bool]string{true: "yes", false: "no"}[r.Applies] }},
		{Name: "factor", Header: "Factor", Value: func(r CalibrationOut) string { return speed(r, r.Factor) }},
		{Name: "errbefore", Header: "ErrBefore", Value: func(r CalibrationOut) string { return speed(r, r.ErrBefore) }},
		{Name: "errafter", Header: "ErrAfter", Value: func(r CalibrationOut) string { return speed(r, r.ErrAfter) }},
		{Name: "watts", Header: "Watts", Value: func(r CalibrationOut) string {
			if r.Kind != "power" {
				return ""
			}
			return FmtFloat(r.Watts, 0)
		}},
	}
}

// CalibrationFieldHelp lists the --format fields of the calibration report
// (-o help), without a database.
func CalibrationFieldHelp(w io.Writer) error { return WriteFieldHelp(w, calibrationFields()) }
