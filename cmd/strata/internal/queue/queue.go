package queue

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Row is one job with its hint, as `strata queue` shows it, and what
// Strata last wrote to it (its admin comment's strata: segment).
type Row struct {
	planner.Job
	HasHint   bool           `json:"has_hint"`
	Hints     *planner.Hints `json:"hints,omitempty"`
	HintError string         `json:"hint_error,omitempty"`
	// Written is Strata's segment of the admin comment (nil: none).
	Written *decide.Written `json:"-"`
	// Decision is why Strata wrote what it wrote, in reason codes
	// (comma-separated, e.g. "deferred,allocation_changed"); "" when
	// Strata wrote nothing or an older Strata wrote no why=.
	Decision string `json:"decision,omitempty"`
	// PlannedStart is the start Strata planned for a pending job when it
	// last wrote to it (its begin time when deferred); zero when unknown.
	PlannedStart time.Time `json:"planned_start,omitzero"`
}

// Rows parses the hints of jobs and what Strata wrote to them, in their
// order.
func Rows(jobs []planner.Job) []Row {
	rows := make([]Row, 0, len(jobs))
	for _, j := range jobs {
		r := Row{Job: j}
		if w, ok := decide.ParseAdminComment(j.AdminComment); ok {
			r.Written = &w
			codes := make([]string, len(w.Why))
			for i, c := range w.Why {
				codes[i] = string(c)
			}
			r.Decision = strings.Join(codes, ",")
			if r.PlannedStart = w.Start; r.PlannedStart.IsZero() {
				r.PlannedStart = w.Defer // an older segment: its begin time
			}
		}
		h, ok, err := planner.ParseHints(j.Comment)
		r.HasHint = ok
		switch {
		case err != nil:
			r.HintError = err.Error()
		case ok:
			r.Hints = &h
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteJSON writes the snapshot's identity, time, cluster and nodes with
// rows as one indented JSON document.
func WriteJSON(w io.Writer, snap *planner.Snapshot, rows []Row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		SnapshotID string         `json:"snapshot_id"`
		Now        time.Time      `json:"now"`
		Cluster    string         `json:"cluster"`
		Nodes      []planner.Node `json:"nodes"`
		Jobs       []Row          `json:"jobs"`
	}{snap.ID, snap.Now, snap.Cluster, snap.Nodes, rows})
}

var header = []string{"JOBID", "PARTITION", "NAME", "USER", "ST", "GPUS", "PRIORITY", "TIME_LIMIT", "DECISION", "START", "HINT"}

// fields are a row's columns, each on one line (a job name's line break
// would forge a row); names are clipped to width runes (0: not clipped).
func fields(r Row, width int) []string {
	return []string{strconv.FormatInt(r.ID, 10), r.Partition, clip(term.OneLine(r.Name), width), clip(term.OneLine(r.User), width),
		stateCode(r.State), gpuShape(r.Job), strconv.FormatInt(r.Priority, 10), timeLimitText(r), decisionText(r), startText(r),
		term.OneLine(hintText(r, 0))}
}

// timeLimitText is the TIME_LIMIT column, as squeue's %l: days-hh:mm:ss,
// or UNLIMITED.
func timeLimitText(r Row) string {
	if r.TimeLimit <= 0 {
		return "UNLIMITED"
	}
	return term.Duration(r.TimeLimit)
}

// decisionText is the DECISION column: the why= codes Strata wrote, "rank
// R" for a segment of an older Strata without them, "-" when Strata wrote
// nothing to the job.
func decisionText(r Row) string {
	switch {
	case r.Written == nil:
		return "-"
	case r.Decision == "":
		return "rank " + strconv.Itoa(r.Written.Rank)
	}
	return r.Decision
}

// startText is the START column: when a running job started, when Strata
// plans a pending one to start (as of its last write), or "-".
func startText(r Row) string {
	switch {
	case !r.StartTime.IsZero():
		return stamp(r.StartTime)
	case r.State == planner.JobPending && !r.PlannedStart.IsZero():
		return stamp(r.PlannedStart)
	}
	return "-"
}

// WriteTable writes rows as aligned columns, with a header line when
// withHeader is set. On a terminal of cols columns (cols > 0) names are
// clipped to 12 characters and the HINT column to what is left of the
// line; cols 0 (a pipe or a file) clips nothing.
func WriteTable(w io.Writer, rows []Row, withHeader bool, cols int) error {
	nameWidth := 0
	if cols > 0 {
		nameWidth = 12
	}
	lines := make([][]string, 0, len(rows)+1)
	if withHeader {
		lines = append(lines, header)
	}
	for _, r := range rows {
		lines = append(lines, fields(r, nameWidth))
	}
	if cols > 0 {
		used := 0 // the columns before HINT, each with its 2 spaces of padding
		for i := range len(header) - 1 {
			wd := 0
			for _, l := range lines {
				wd = max(wd, utf8.RuneCountInString(l[i]))
			}
			used += wd + 2
		}
		for i, l := range lines {
			if i > 0 || !withHeader {
				l[len(l)-1] = clip(l[len(l)-1], max(10, cols-used))
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range lines {
		fmt.Fprintln(tw, strings.Join(l, "\t"))
	}
	return tw.Flush()
}

// WriteParsable writes rows as '|'-separated lines (like sacct -P), nothing
// clipped, '|' inside a field written as '/' and a line break as \n.
func WriteParsable(w io.Writer, rows []Row, withHeader bool) error {
	if withHeader {
		if _, err := fmt.Fprintln(w, strings.Join(header, "|")); err != nil {
			return err
		}
	}
	for _, r := range rows {
		f := fields(r, 0)
		for i := range f {
			f[i] = term.ParsableCell(f[i], '|')
		}
		if _, err := fmt.Fprintln(w, strings.Join(f, "|")); err != nil {
			return err
		}
	}
	return nil
}

// stateCode is squeue's compact state (PD, R, S, CG, ...).
func stateCode(s planner.JobState) string {
	switch s {
	case planner.JobPending:
		return "PD"
	case planner.JobRunning:
		return "R"
	case planner.JobSuspended:
		return "S"
	}
	return string(s)
}

// gpuShape renders the GPU request: "4", "2x4" (nodes × per node),
// "3/job" (--gpus), with ":type" when typed; "0" without GPUs.
func gpuShape(j planner.Job) string {
	s := strconv.Itoa(j.GPUs())
	switch {
	case j.GPUsPerJob > 0:
		s = strconv.Itoa(j.GPUsPerJob) + "/job"
	case j.Nodes > 1 && j.GPUsPerNode > 0:
		s = fmt.Sprintf("%dx%d", j.Nodes, j.GPUsPerNode)
	}
	if j.GPUType != "" {
		s += ":" + j.GPUType
	}
	return s
}

// hintText is the HINT column: the strata: segment as written, the parse
// error in plain words, or "-" without a hint.
func hintText(r Row, width int) string {
	switch {
	case r.HintError != "":
		return "ERROR " + r.HintError
	case !r.HasHint:
		return "-"
	}
	seg, _ := planner.HintSegment(r.Comment)
	return clip(strings.Join(strings.Fields(seg), " "), width)
}

// clip shortens s to width runes with a trailing "…" (width 0: no limit).
func clip(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}
