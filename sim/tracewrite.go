package sim

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// traceColumns are the columns WriteTrace writes, before the jct_* ones.
var traceColumns = []string{"job_id", "name", "user", "submit_time", "duration_s", "gpus", "nodes", "model",
	"batch_size", "iterations", "cpus", "memory_mib", "bb_bytes", "bb_in_bytes", "bb_out_bytes", "time_limit_s"}

// deadlineColumns are written after them when any job has a deadline.
var deadlineColumns = []string{"deadline_s", "tardiness_weight"}

// siteColumns are written after those when any job has a partition or a
// hint of its own (a site's history, FromHistory).
var siteColumns = []string{"partition", "hint"}

// WriteTrace writes tr as a CSV trace that ReadTrace reads back to the same
// jobs: the columns above (empty where a job has no value), the deadline
// columns when any job has a deadline, partition and hint when any job has
// one, and one jct_* column per published
// scheduler.
func WriteTrace(w io.Writer, tr *Trace) error {
	pub := map[string]bool{}
	for _, j := range tr.Jobs {
		for k := range j.Published {
			pub[k] = true
		}
	}
	pubs := slices.Sorted(maps.Keys(pub))
	cw := csv.NewWriter(w)
	head := append([]string(nil), traceColumns...)
	dl := hasDeadlines(tr)
	if dl {
		head = append(head, deadlineColumns...)
	}
	site := slices.ContainsFunc(tr.Jobs, func(j TraceJob) bool { return j.Partition != "" || j.Hint != "" })
	if site {
		head = append(head, siteColumns...)
	}
	for _, k := range pubs {
		head = append(head, "jct_"+k)
	}
	if err := cw.Write(head); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	optNum := func(v float64) string {
		if v <= 0 {
			return ""
		}
		return num(v)
	}
	opt := func(v int64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	for _, j := range tr.Jobs {
		rec := []string{j.ID, j.Name, j.User, num(j.Submit), num(j.Duration), strconv.Itoa(j.GPUs), opt(int64(j.Nodes)),
			j.Model, opt(int64(j.BatchSize)), opt(j.Iterations), opt(int64(j.CPUs)), opt(j.MemoryMB),
			opt(j.BBBytes), opt(j.BBInBytes), opt(j.BBOutBytes), optNum(j.TimeLimit)}
		if dl {
			rec = append(rec, optNum(j.Deadline), optNum(j.TardinessWeight))
		}
		if site {
			rec = append(rec, j.Partition, j.Hint)
		}
		for _, k := range pubs {
			v, ok := j.Published[k]
			if ok {
				rec = append(rec, num(v))
			} else {
				rec = append(rec, "")
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	return nil
}
