package queue

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/planner"
)

// Filter selects rows like squeue's -u, -p, -t and -j (empty: any).
type Filter struct {
	Users, Partitions []string
	States            []planner.JobState
	Jobs              []int64
}

// ParseStates reads squeue's -t list: PD, R, S or the full names
// (pending, running, suspended), any case; "all" is any state.
func ParseStates(list []string) ([]planner.JobState, error) {
	var out []planner.JobState
	for _, s := range list {
		switch strings.ToUpper(strings.TrimSpace(s)) {
		case "PD", "PENDING":
			out = append(out, planner.JobPending)
		case "R", "RUNNING":
			out = append(out, planner.JobRunning)
		case "S", "SUSPENDED":
			out = append(out, planner.JobSuspended)
		case "ALL":
			return nil, nil
		case "":
		default:
			return nil, fmt.Errorf("--states %q: use PD, R, S (pending, running, suspended) or all", s)
		}
	}
	return out, nil
}

// ParseJobs reads squeue's -j list of job IDs.
func ParseJobs(list []string) ([]int64, error) {
	var out []int64
	for _, s := range list {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("--jobs %q: want job IDs such as 4242,4243", s)
		}
		out = append(out, id)
	}
	return out, nil
}

// Apply returns the rows f selects, in order.
func (f Filter) Apply(rows []Row) []Row {
	out := rows[:0:0]
	for _, r := range rows {
		part, _, _ := strings.Cut(r.Partition, ",")
		if (len(f.Users) == 0 || slices.Contains(f.Users, r.User)) &&
			(len(f.Partitions) == 0 || slices.Contains(f.Partitions, part) || slices.Contains(f.Partitions, r.Partition)) &&
			(len(f.States) == 0 || slices.Contains(f.States, r.State)) &&
			(len(f.Jobs) == 0 || slices.Contains(f.Jobs, r.ID)) {
			out = append(out, r)
		}
	}
	return out
}

// A Format is an squeue -o format: "%i %P %.20j %u %t %b %Q %S %h". Fields:
// %i job ID, %P partition, %j name, %u user, %t compact state, %T state,
// %b GPUs, %D nodes, %Q priority, %r reason, %V submit time, %S start time
// (running: actual; pending: what Strata predicts, with --start, else what
// it planned when it last wrote to the job), %l time
// limit, %h the strata: hint (or its error). "%.N" right-aligns and
// truncates to N characters, "%N" left-aligns; other text is copied.
type Format struct{ parts []formatPart }

type formatPart struct {
	lit   string
	field byte
	width int
	right bool
}

var fieldRE = regexp.MustCompile(`%([.-]?)(\d*)([a-zA-Z])`)

// FormatField is one field of --format: its letter, header and meaning.
type FormatField struct {
	Code   byte
	Header string
	Help   string
}

// FormatFields are the fields of --format, in the order `-o help` lists
// them.
var FormatFields = []FormatField{
	{'i', "JOBID", "job ID"},
	{'P', "PARTITION", "partition"},
	{'j', "NAME", "job name"},
	{'u', "USER", "user"},
	{'t', "ST", "compact state (PD, R, S, CG)"},
	{'T', "STATE", "state (PENDING, RUNNING, ...)"},
	{'b', "GPUS", "GPUs: N, NxM (nodes x per node) or N/job"},
	{'D', "NODES", "nodes"},
	{'Q', "PRIORITY", "priority"},
	{'r', "REASON", "why a pending job waits (Slurm's reason)"},
	{'V', "SUBMIT_TIME", "submit time"},
	{'S', "START_TIME", "start: actual (running), predicted (--start) or planned by Strata (pending)"},
	{'l', "TIME_LIMIT", "time limit, days-hh:mm:ss or UNLIMITED"},
	{'h', "HINT", "the strata: hint, or its error"},
}

// fieldList is " %i %P ..." for error messages.
func fieldList() string {
	var b strings.Builder
	for _, f := range FormatFields {
		fmt.Fprintf(&b, " %%%c", f.Code)
	}
	return b.String()
}

// WriteFormatHelp writes `strata queue -o help`: every field with its
// header and meaning, and how widths are written.
func WriteFormatHelp(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tHEADER\tMEANING")
	for _, f := range FormatFields {
		fmt.Fprintf(tw, "%%%c\t%s\t%s\n", f.Code, f.Header, f.Help)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%%.N right-aligns and cuts to N characters, %%N left-aligns; other text is copied.\n"+
		"Default with --start: %q\n", StartFormat)
	return err
}

// ParseFormat reads an squeue -o style format.
func ParseFormat(s string) (Format, error) {
	var f Format
	last := 0
	for _, m := range fieldRE.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > last {
			f.parts = append(f.parts, formatPart{lit: s[last:m[0]]})
		}
		c := s[m[6]]
		if fieldHeader[c] == "" {
			return Format{}, fmt.Errorf("--format: %%%c is not a field; use%s (-o help lists them)", c, fieldList())
		}
		p := formatPart{field: c, right: s[m[2]:m[3]] == "."}
		if m[4] < m[5] {
			p.width, _ = strconv.Atoi(s[m[4]:m[5]])
		}
		f.parts = append(f.parts, p)
		last = m[1]
	}
	if last < len(s) {
		f.parts = append(f.parts, formatPart{lit: s[last:]})
	}
	if !slices.ContainsFunc(f.parts, func(p formatPart) bool { return p.field != 0 }) {
		return Format{}, fmt.Errorf("--format %q: no fields; e.g. \"%%.8i %%.9P %%.20j %%.8u %%.2t %%.6b %%l %%S %%h\" (-o help lists them)", s)
	}
	return f, nil
}

var fieldHeader = func() map[byte]string {
	m := map[byte]string{}
	for _, f := range FormatFields {
		m[f.Code] = f.Header
	}
	return m
}()

// Starts are the start times to show for pending jobs (predicted by a plan).
type Starts map[int64]time.Time

func (p formatPart) value(r Row, starts Starts) string {
	switch p.field {
	case 'i':
		return strconv.FormatInt(r.ID, 10)
	case 'P':
		return r.Partition
	case 'j':
		return r.Name
	case 'u':
		return r.User
	case 't':
		return stateCode(r.State)
	case 'T':
		return string(r.State)
	case 'b':
		return gpuShape(r.Job)
	case 'D':
		return strconv.Itoa(r.Nodes)
	case 'Q':
		return strconv.FormatInt(r.Priority, 10)
	case 'r':
		return r.Reason
	case 'V':
		return stamp(r.SubmitTime)
	case 'S':
		if !r.StartTime.IsZero() {
			return stamp(r.StartTime)
		}
		if t, ok := starts[r.ID]; ok {
			return stamp(t)
		}
		if r.State == planner.JobPending && !r.PlannedStart.IsZero() {
			return stamp(r.PlannedStart) // what Strata planned at its last write
		}
		return "N/A"
	case 'l':
		return timeLimitText(r)
	case 'h':
		return hintText(r, 0)
	}
	return ""
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "N/A"
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

func (p formatPart) fit(s string) string {
	s = term.OneLine(s)
	if p.width <= 0 {
		return s
	}
	if r := []rune(s); len(r) > p.width {
		s = string(r[:p.width])
	}
	if p.right {
		return fmt.Sprintf("%*s", p.width, s)
	}
	return fmt.Sprintf("%-*s", p.width, s)
}

// WriteFormat writes rows in format f (with a header line when withHeader
// is set), like squeue -o.
func WriteFormat(w io.Writer, f Format, rows []Row, starts Starts, withHeader bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 0, ' ', 0)
	line := func(val func(formatPart) string) {
		var b strings.Builder
		for _, p := range f.parts {
			if p.field == 0 {
				b.WriteString(p.lit)
				continue
			}
			b.WriteString(p.fit(val(p)))
		}
		fmt.Fprintln(tw, strings.TrimRight(b.String(), " "))
	}
	if withHeader {
		line(func(p formatPart) string { return fieldHeader[p.field] })
	}
	for _, r := range rows {
		line(func(p formatPart) string { return p.value(r, starts) })
	}
	return tw.Flush()
}

// StartFormat is squeue --start's layout.
const StartFormat = "%.8i %.9P %.20j %.8u %.2t %.19S %.6b %r"

// Selection is what squeue-style flags ask for.
type Selection struct {
	Users, Partitions, States, Jobs []string
	StatesSet                       bool // -t was given (--start defaults to pending jobs otherwise)
	Format                          string
	Start                           bool
}

// Select turns a selection into a filter and a format; errors name the flag.
func Select(s Selection) (Filter, Format, error) {
	f := Filter{Users: s.Users, Partitions: s.Partitions}
	var err error
	if f.States, err = ParseStates(s.States); err != nil {
		return f, Format{}, err
	}
	if s.Start && !s.StatesSet {
		f.States = []planner.JobState{planner.JobPending}
	}
	if f.Jobs, err = ParseJobs(s.Jobs); err != nil {
		return f, Format{}, err
	}
	spec := s.Format
	if spec == "" {
		spec = StartFormat
	}
	format, err := ParseFormat(spec)
	return f, format, err
}

// PredictStarts runs policy p once on snap and returns the start it
// predicts for each job. Nothing is written.
func PredictStarts(ctx context.Context, p planner.Policy, snap *planner.Snapshot) (Starts, error) {
	plan, err := p.Plan(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("plan for --start: %w", err)
	}
	starts := Starts{}
	for _, d := range plan.Decisions {
		if !d.PredictedStart.IsZero() {
			starts[d.JobID] = d.PredictedStart
		}
	}
	return starts, nil
}
