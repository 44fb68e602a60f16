package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// TraceJob is one job of a trace. Times are seconds from the trace start.
type TraceJob struct {
	// ID is the trace's job_id (kept for output); the simulator gives jobs
	// its own Slurm-like IDs 1..n in submission order.
	ID     string
	Submit float64
	// Duration is the run time on GPUs GPUs (seconds), the ground truth when
	// there is no scaling curve.
	Duration float64
	GPUs     int
	// Nodes is the requested node count (0 = not given).
	Nodes     int
	Model     string
	BatchSize int
	// Iterations is the number of training steps (0 = not given).
	Iterations int64
	User       string
	Name       string
	CPUs       int
	// MemoryMB is the job's host memory in MB (column memory_mib; 0 = not
	// given: a share of the node per GPU).
	MemoryMB int64
	// BBBytes is the burst-buffer capacity the job stages its data into
	// (column bb_bytes; 0 = none). BBInBytes is the data staged in before
	// it starts (column bb_in_bytes; 0 = the whole capacity), BBOutBytes
	// the data staged out after it ends (column bb_out_bytes; 0 = none).
	BBBytes, BBInBytes, BBOutBytes int64
	// TimeLimit is the job's time limit in seconds (column time_limit_s;
	// 0 = none: the Slurm mode derives one, SlurmConfig.TimeLimitFactor).
	TimeLimit float64
	// Deadline is the job's deadline in seconds from the trace start
	// (column deadline_s; 0 = none) and TardinessWeight the cost of each
	// second it ends late (column tardiness_weight): SynthDeadlines draws
	// both; the simulator writes them into the job's hint (deadline=,
	// weight=) and reports the cost terms (CostTerms).
	Deadline, TardinessWeight float64
	// Published holds per-job JCTs other schedulers published for this
	// trace, by column name without the "jct_" prefix (e.g. "pollux").
	Published map[string]float64
	// PS marks a parameter-server job of the catalog (MakePS; not a
	// trace column).
	PS bool
	// What the job's user knows and claims (users.go, knowledge.go; not
	// trace columns): Dishonest marks a job of a user who understates the
	// work in every hint (MakeDishonest); ClaimScale is the work the hint
	// claims over the true work (0 = 1: the truth; a lie or a realistic
	// error); NoHint: the user wrote no hint (the job is timed by the
	// run's predictor and keeps its size).
	Dishonest  bool
	ClaimScale float64
	NoHint     bool
	// ClaimPreempt: the hint says preempt=yes but the job is not
	// requeueable (the liars' TacticPreempt). Filler: a tiny honest job a
	// liar of TacticTiny submits before each lie (no side of the honesty
	// statistics).
	ClaimPreempt, Filler bool
	// Partition is the Slurm partition field the job was submitted with
	// (column partition; comma-separated when it listed several; "" =
	// every partition of the cluster, as sbatch -p a,b,...). Hint is its
	// user's hint as written (column hint, the strata: segment of its
	// --comment; "" = none): the job's comment is this, not one built from
	// model, batch_size and iterations. A site's history has both
	// (FromHistory).
	Partition string
	Hint      string
}

// Trace is a parsed trace file.
type Trace struct {
	Jobs []TraceJob
	// Skipped counts malformed rows dropped with ReadOptions.SkipBad.
	Skipped int
	// CPUOnly counts rows with gpus=0, which a GPU simulation ignores.
	CPUOnly int
}

// ReadOptions control ReadTrace.
type ReadOptions struct {
	// SkipBad drops malformed rows (counted in Trace.Skipped) instead of
	// failing on the first one.
	SkipBad bool
}

// LineError is a malformed trace row: the 1-based line number, the column
// and what is wrong with it.
type LineError struct {
	Line   int
	Column string
	Err    error
}

// Error implements error: "line N: column C: what is wrong".
func (e *LineError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: column %s: %v", e.Line, e.Column, e.Err)
}

// Unwrap returns the underlying parse error.
func (e *LineError) Unwrap() error { return e.Err }

// maxTraceSeconds bounds submit times, durations and time limits: larger
// values are not real jobs, and would make the simulation tick for ever.
const maxTraceSeconds = 1e9

// requiredColumns must appear in the header of every trace.
var requiredColumns = []string{"job_id", "submit_time", "duration_s", "gpus"}

// ReadTrace parses a CSV trace with at least job_id, submit_time,
// duration_s and gpus columns; model, batch_size, nodes, user, job_name
// (or name), iterations, cpus, memory_mib, bb_bytes, bb_in_bytes, bb_out_bytes, time_limit_s,
// deadline_s, tardiness_weight, partition, hint,
// gpu_milli and jct_* columns are used when
// present; other columns are ignored. Rows with gpus=0 are counted as
// CPU-only and dropped; a fractional GPU (gpu_milli < 1000) counts as one
// GPU. Jobs are returned sorted by (submit time, row order).
func ReadTrace(r io.Reader, o ReadOptions) (*Trace, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read trace header: %w", err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range requiredColumns {
		if _, ok := cols[c]; !ok {
			return nil, fmt.Errorf("read trace header: missing column %q (a job trace needs %s; this file has %s)",
				c, strings.Join(requiredColumns, ","), headerSample(header))
		}
	}
	t := &Trace{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil { // FieldPos only of a record read (a read error's line is in its csv.ParseError)
			line, _ := cr.FieldPos(0)
			var j TraceJob
			j, err = parseRow(rec, len(header), cols, line)
			if err == nil {
				if j.GPUs == 0 {
					t.CPUOnly++
					continue
				}
				t.Jobs = append(t.Jobs, j)
				continue
			}
		}
		if !o.SkipBad {
			return nil, fmt.Errorf("read trace: %w (use --skip-bad to drop bad rows)", err)
		}
		t.Skipped++
	}
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].Submit < t.Jobs[b].Submit })
	return t, nil
}

// headerSample lists the first header names, for error messages.
func headerSample(h []string) string {
	if len(h) > 6 {
		return strings.Join(h[:6], ",") + ",..."
	}
	return strings.Join(h, ",")
}

// rowReader extracts typed fields of one row, remembering the first error.
type rowReader struct {
	rec  []string
	cols map[string]int
	line int
	err  error
}

func (r *rowReader) str(col string) string {
	i, ok := r.cols[col]
	if !ok || i >= len(r.rec) {
		return ""
	}
	return strings.TrimSpace(r.rec[i])
}

func (r *rowReader) float(col string, required bool) float64 {
	s := r.str(col)
	if s == "" {
		if required && r.err == nil {
			r.err = &LineError{Line: r.line, Column: col, Err: errors.New("empty value")}
		}
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("%q is negative or not finite", s)
	}
	if err != nil && r.err == nil {
		r.err = &LineError{Line: r.line, Column: col, Err: fmt.Errorf("want a number ≥ 0: %w", err)}
	}
	return v
}

func (r *rowReader) int(col string, required bool) int64 {
	v := r.float(col, required)
	if v != math.Trunc(v) && r.err == nil {
		r.err = &LineError{Line: r.line, Column: col, Err: fmt.Errorf("want a whole number, got %v", v)}
	}
	if v > 1<<40 && r.err == nil {
		r.err = &LineError{Line: r.line, Column: col, Err: fmt.Errorf("%v is too large", v)}
	}
	return int64(v)
}

func parseRow(rec []string, width int, cols map[string]int, line int) (TraceJob, error) {
	if len(rec) != width {
		return TraceJob{}, &LineError{Line: line, Err: fmt.Errorf("%d fields, header has %d", len(rec), width)}
	}
	r := &rowReader{rec: rec, cols: cols, line: line}
	j := TraceJob{
		ID:         r.str("job_id"),
		Submit:     r.float("submit_time", true),
		Duration:   r.float("duration_s", true),
		GPUs:       int(r.int("gpus", true)),
		Nodes:      int(r.int("nodes", false)),
		Model:      strings.ToLower(r.str("model")),
		BatchSize:  int(r.int("batch_size", false)),
		Iterations: r.int("iterations", false),
		User:       r.str("user"),
		Name:       r.str("job_name"),
		CPUs:       int(math.Ceil(r.float("cpus", false))), // fractional in Alibaba (cpu_milli/1000)
		MemoryMB:   int64(math.Ceil(r.float("memory_mib", false))),
		BBBytes:    r.int("bb_bytes", false),
		BBInBytes:  r.int("bb_in_bytes", false),
		BBOutBytes: r.int("bb_out_bytes", false),
		TimeLimit:  r.float("time_limit_s", false),
		Deadline:   r.float("deadline_s", false),
	}
	j.TardinessWeight = r.float("tardiness_weight", false)
	j.Partition, j.Hint = r.str("partition"), r.str("hint")
	for _, c := range []struct {
		col string
		v   float64
	}{{"submit_time", j.Submit}, {"duration_s", j.Duration}, {"time_limit_s", j.TimeLimit}, {"deadline_s", j.Deadline}} {
		if c.v > maxTraceSeconds && r.err == nil {
			r.err = &LineError{Line: line, Column: c.col, Err: fmt.Errorf("%g s is more than %g s (31 years): not a real job", c.v, float64(maxTraceSeconds))}
		}
	}
	if j.Name == "" {
		j.Name = r.str("name")
	}
	if j.ID == "" && r.err == nil {
		r.err = &LineError{Line: line, Column: "job_id", Err: errors.New("empty value")}
	}
	if j.GPUs == 0 && r.str("gpu_milli") != "" && r.float("gpu_milli", false) > 0 {
		j.GPUs = 1 // a GPU share is simulated as a whole GPU
	}
	for c, i := range cols {
		if name, ok := strings.CutPrefix(c, "jct_"); ok && i < len(rec) && rec[i] != "" {
			if v := r.float(c, false); r.err == nil {
				if j.Published == nil {
					j.Published = map[string]float64{}
				}
				j.Published[name] = v
			}
		}
	}
	if r.err != nil {
		return TraceJob{}, r.err
	}
	return j, nil
}
