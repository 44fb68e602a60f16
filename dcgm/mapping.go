package dcgm

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JobGPU says that a Slurm job holds a GPU on a host. Index is the number the
// mapping input used (its meaning depends on IndexKind); UUID is filled by
// ResolveUUIDs. Since is when the holding began, when the input knows it
// (mapping-file mtime), else zero.
type JobGPU struct {
	Job   int64     `json:"job"`
	Host  string    `json:"host"`
	Index int       `json:"index"`
	UUID  string    `json:"uuid,omitempty"`
	Since time.Time `json:"since,omitzero"`
}

// IndexKind names what a JobGPU.Index means.
type IndexKind int

const (
	// ByDeviceIndex: the DCGM gpu id / NVML index (dcgm-exporter's mapping
	// directory and hpc_job labels).
	ByDeviceIndex IndexKind = iota
	// ByMinor: the device minor number (/dev/nvidiaN), which is what Slurm's
	// GRES IDX in gres_detail counts.
	ByMinor
)

// SlurmAlloc is one running job's GPU indices on one node, as Slurm reports
// them (gres_detail IDX, device minor order).
type SlurmAlloc struct {
	Job     int64
	Node    string
	Indices []int
}

// FromSlurm expands Slurm allocations into JobGPUs (IndexKind ByMinor).
func FromSlurm(allocs []SlurmAlloc) []JobGPU {
	var out []JobGPU
	for _, a := range allocs {
		for _, i := range a.Indices {
			out = append(out, JobGPU{Job: a.Job, Host: a.Node, Index: i})
		}
	}
	sortJobGPUs(out)
	return out
}

// ReadMappingDir reads a prolog/epilog mapping directory in dcgm-exporter's
// format: one plain file per GPU named "<gpu>" or "<gpu>.<gpu-instance>"
// (DCGM gpu id, IndexKind ByDeviceIndex), each line holding one job id (a
// second whitespace-separated field, such as a uid, is ignored). Other files
// are ignored; Since is the file's modification time. The result is sorted.
func ReadMappingDir(dir, host string) ([]JobGPU, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read mapping dir: %w", err)
	}
	var out []JobGPU
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		gpu, ok := mappingFileGPU(e.Name())
		if !ok {
			continue
		}
		jobs, mtime, err := readMappingFile(filepath.Join(dir, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // removed by an epilog while we read
		}
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			out = append(out, JobGPU{Job: j, Host: host, Index: gpu, Since: mtime})
		}
	}
	sortJobGPUs(out)
	return dedupJobGPUs(out), nil
}

func mappingFileGPU(name string) (int, bool) {
	base, _, _ := strings.Cut(name, ".")
	n, err := strconv.Atoi(base)
	return n, err == nil && n >= 0
}

func readMappingFile(path string) ([]int64, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read mapping file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("stat mapping file: %w", err)
	}
	var jobs []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		id, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("mapping file %s: job id %q: %w", path, fields[0], err)
		}
		jobs = append(jobs, id)
	}
	if err := sc.Err(); err != nil {
		return nil, time.Time{}, fmt.Errorf("read mapping file %s: %w", path, err)
	}
	return jobs, st.ModTime().UTC(), nil
}

// ResolveUUIDs fills the UUID of every JobGPU from the samples of its host:
// by the device index or by the minor number, as kind says. When no sample of
// a host carries a minor number (DCGM does not report it), ByMinor falls back
// to the device index. JobGPUs whose GPU is not in samples are returned in
// the second result (unresolved), not dropped silently.
func ResolveUUIDs(jobs []JobGPU, samples []Sample, kind IndexKind) (resolved, unresolved []JobGPU) {
	type key struct {
		host string
		idx  int
	}
	byIndex, byMinor := map[key]string{}, map[key]string{}
	hostHasMinor := map[string]bool{}
	for _, s := range samples {
		byIndex[key{s.Host, s.Index}] = s.UUID
		if s.Minor >= 0 {
			byMinor[key{s.Host, s.Minor}] = s.UUID
			hostHasMinor[s.Host] = true
		}
	}
	for _, j := range jobs {
		table := byIndex
		if kind == ByMinor && hostHasMinor[j.Host] {
			table = byMinor
		}
		uuid, ok := table[key{j.Host, j.Index}]
		if !ok {
			unresolved = append(unresolved, j)
			continue
		}
		j.UUID = uuid
		resolved = append(resolved, j)
	}
	return resolved, unresolved
}

func sortJobGPUs(s []JobGPU) {
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Job != b.Job {
			return a.Job < b.Job
		}
		return a.UUID < b.UUID
	})
}

// dedupJobGPUs drops repeated (job, host, index) entries of a sorted slice,
// keeping the earliest Since (MIG instances of one GPU held by one job).
func dedupJobGPUs(s []JobGPU) []JobGPU {
	out := s[:0]
	for _, j := range s {
		if n := len(out); n > 0 && out[n-1].Job == j.Job && out[n-1].Host == j.Host && out[n-1].Index == j.Index {
			if j.Since.Before(out[n-1].Since) {
				out[n-1].Since = j.Since
			}
			continue
		}
		out = append(out, j)
	}
	return out
}
