package power

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReadOptions say how to turn a trace into busy nodes.
type ReadOptions struct {
	// GPUsPerNode converts GPU counts to nodes (Helios: 8). 0 means 8.
	GPUsPerNode int
	// TotalNodes overrides the node count of a series that has none (the
	// Venus throughput file); 0 means the largest busy count seen.
	TotalNodes int
	// VC keeps only these virtual clusters of a per-VC series (empty: all).
	VC []string
}

// Formats ReadSeries recognises, by their columns.
const (
	// FormatNodes: busy_nodes (or active_nodes) and total_nodes per row,
	// e.g. philly_node_sequence.csv and what `strata report power
	// --history-csv` writes.
	FormatNodes = "nodes"
	// FormatVCGPUs: vc, total_gpu_num, running_gpu_num, one row per VC and
	// time (helios_earth_2020-05_vc_sequence.csv). Nodes per VC =
	// ⌈total/GPUsPerNode⌉, busy nodes per VC = ⌈running/GPUsPerNode⌉ (jobs
	// packed onto as few nodes as possible: a lower bound of the nodes
	// holding a job); the cluster is the sum over VCs.
	FormatVCGPUs = "vc-gpus"
	// FormatThroughput: start_gpu_num, end_gpu_num per interval
	// (helios_venus_throughput_10min.csv): GPUs running =
	// Σ starts − Σ ends, shifted so that its minimum is 0 (Venus was empty
	// after the 2020-05-10 00:10 mass end), then ⌈running/GPUsPerNode⌉.
	FormatThroughput = "throughput"
)

// ReadSeries reads a node series from a CSV file with a header: time_s
// (seconds, equal steps) and optionally time ("YYYY-MM-DD HH:MM:SS", taken
// as UTC) plus the columns of one of the formats above. A missing interval
// is filled with the one before it and counted in the second result.
func ReadSeries(r io.Reader, name string, o ReadOptions) (Series, int, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		return Series{}, 0, fmt.Errorf("read %s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.ToLower(h))] = i
	}
	format, err := detect(col)
	if err != nil {
		return Series{}, 0, fmt.Errorf("read %s: %w", name, err)
	}
	gpn := o.GPUsPerNode
	if gpn <= 0 {
		gpn = 8
	}
	var pts []point
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return Series{}, 0, fmt.Errorf("read %s: %w", name, err)
		}
		p, keep, err := parseRow(rec, col, format, gpn, o.VC)
		if err != nil {
			return Series{}, 0, fmt.Errorf("read %s: line %d: %w", name, line, err)
		}
		if keep {
			pts = append(pts, p)
		}
	}
	s, filled, err := assemble(pts, format, name, gpn, o.TotalNodes)
	if err != nil {
		return Series{}, 0, fmt.Errorf("read %s: %w", name, err)
	}
	return s, filled, nil
}

func detect(col map[string]int) (string, error) {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := col[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case !has("time_s"):
		return "", fmt.Errorf("no time_s column")
	case has("total_nodes") && (has("busy_nodes") || has("active_nodes")):
		return FormatNodes, nil
	case has("vc", "total_gpu_num", "running_gpu_num"):
		return FormatVCGPUs, nil
	case has("start_gpu_num", "end_gpu_num"):
		return FormatThroughput, nil
	}
	return "", fmt.Errorf("unknown columns: want busy_nodes (or active_nodes) and total_nodes; " +
		"vc, total_gpu_num and running_gpu_num; or start_gpu_num and end_gpu_num")
}

// point is one row: seconds from the trace start, wall clock (may be
// zero), and busy/total in nodes (FormatThroughput: busy holds the net
// GPU change, total is unused).
type point struct {
	sec         int64
	at          time.Time
	busy, total int
}

func parseRow(rec []string, col map[string]int, format string, gpn int, vcs []string) (point, bool, error) {
	get := func(name string) (int64, error) {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return 0, fmt.Errorf("column %s: missing", name)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		if err != nil || v < 0 || v > math.MaxInt32 || v != math.Trunc(v) {
			return 0, fmt.Errorf("column %s: %q is not a count", name, rec[i])
		}
		return int64(v), nil
	}
	var p point
	var err error
	if p.sec, err = get("time_s"); err != nil {
		return p, false, err
	}
	if i, ok := col["time"]; ok && i < len(rec) && rec[i] != "" {
		if p.at, err = time.Parse(time.DateTime, strings.TrimSpace(rec[i])); err != nil {
			return p, false, fmt.Errorf("column time: %q is not YYYY-MM-DD HH:MM:SS", rec[i])
		}
	}
	nodes := func(gpus int64) int { return int((gpus + int64(gpn) - 1) / int64(gpn)) }
	switch format {
	case FormatNodes:
		busyCol := "busy_nodes"
		if _, ok := col[busyCol]; !ok {
			busyCol = "active_nodes"
		}
		b, err1 := get(busyCol)
		t, err2 := get("total_nodes")
		if err := errors.Join(err1, err2); err != nil {
			return p, false, err
		}
		p.busy, p.total = int(b), int(t)
	case FormatVCGPUs:
		if len(vcs) > 0 && !slices.Contains(vcs, rec[col["vc"]]) {
			return p, false, nil
		}
		r, err1 := get("running_gpu_num")
		t, err2 := get("total_gpu_num")
		if err := errors.Join(err1, err2); err != nil {
			return p, false, err
		}
		p.busy, p.total = nodes(r), nodes(t)
	case FormatThroughput:
		st, err1 := get("start_gpu_num")
		en, err2 := get("end_gpu_num")
		if err := errors.Join(err1, err2); err != nil {
			return p, false, err
		}
		p.busy = int(st - en)
	}
	return p, true, nil
}

// assemble merges rows of the same time (VCs), fills gaps and builds the
// series.
func assemble(pts []point, format, name string, gpn, totalNodes int) (Series, int, error) {
	if len(pts) == 0 {
		return Series{}, 0, fmt.Errorf("no rows")
	}
	slices.SortStableFunc(pts, func(a, b point) int { return int(a.sec - b.sec) })
	merged := pts[:1]
	for _, p := range pts[1:] {
		last := &merged[len(merged)-1]
		if p.sec == last.sec {
			if format != FormatVCGPUs {
				return Series{}, 0, fmt.Errorf("time_s %d appears twice", p.sec)
			}
			last.busy += p.busy
			last.total += p.total
			continue
		}
		merged = append(merged, p)
	}
	step := int64(0)
	for i := 1; i < len(merged); i++ {
		d := merged[i].sec - merged[i-1].sec
		if step == 0 || d < step {
			step = d
		}
	}
	if step == 0 {
		step = 600
	}
	s := Series{Name: name, Step: time.Duration(step) * time.Second, Start: merged[0].at}
	filled := 0
	for i, p := range merged {
		if i > 0 {
			gap := p.sec - merged[i-1].sec
			if gap%step != 0 {
				return Series{}, 0, fmt.Errorf("time_s %d is not on the %d s grid", p.sec, step)
			}
			for k := int64(1); k < gap/step; k++ {
				prev := merged[i-1]
				if format == FormatThroughput {
					prev.busy = 0 // no starts or ends recorded
				}
				s.Busy, s.Total = append(s.Busy, prev.busy), append(s.Total, prev.total)
				filled++
			}
		}
		s.Busy, s.Total = append(s.Busy, p.busy), append(s.Total, p.total)
	}
	if format == FormatThroughput {
		cumulate(&s, gpn, totalNodes)
	}
	for i := range s.Busy { // a busy count above the node count is the count's error
		s.Busy[i] = min(s.Busy[i], s.Total[i])
	}
	return s, filled, nil
}

// cumulate turns net GPU starts per interval into busy nodes.
func cumulate(s *Series, gpn, totalNodes int) {
	run, low := 0, 0
	for i, d := range s.Busy {
		run += d
		s.Busy[i] = run
		low = min(low, run)
	}
	peak := 0
	for i := range s.Busy {
		s.Busy[i] = (s.Busy[i] - low + gpn - 1) / gpn
		peak = max(peak, s.Busy[i])
	}
	if totalNodes <= 0 {
		totalNodes = peak
	}
	for i := range s.Total {
		s.Total[i] = totalNodes
	}
}
