package sim

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// HistoryJob is one job of a site's accounting history (slurmdbd's record,
// as `strata simulate --from-slurmdbd` reads it): what FromHistory turns
// into a trace row.
type HistoryJob struct {
	ID                  int64
	User, Account, Name string
	Partition, State    string
	GPUs, Nodes         int
	TimeLimit           time.Duration // 0: none
	Submit, Eligible    time.Time     // Eligible: its --begin (zero: Submit)
	Start, End          time.Time
	Comment             string // its --comment, hint and all
}

// SiteNode is one node of a site as slurmrestd lists it.
type SiteNode struct {
	Name       string
	GPUs       int
	GPUType    string // "" = untyped
	CPUs       int
	MemoryMB   int64
	Partitions []string
}

// Site is a site's cluster as the simulator models it: its GPU nodes in
// islands of nodes that share the same partitions and GPU type (a
// partition that overlaps others spans several islands), and each Slurm
// partition's islands.
type Site struct {
	Cluster ClusterSpec
	// Islands maps each Slurm partition with GPU nodes to the islands
	// (simulated partitions) its nodes are in, in cluster order.
	Islands map[string][]string
	// LeftOut names the nodes the model has no room for, each with why:
	// no GPUs, or another GPU count than the cluster's (the simulated
	// nodes are all of one size).
	LeftOut []string
}

var islandNameRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// SiteCluster builds the simulated cluster of a site from its nodes: nodes
// of the most common GPU count (the simulated nodes are of one size; the
// others are left out and listed), with the fewest CPUs and the least
// memory among them, grouped into islands by partition set and GPU type.
// An island holding exactly one partition's nodes is named after it; any
// other is island1, island2, ...
func SiteCluster(nodes []SiteNode) (Site, error) {
	count := map[int]int{}
	for _, n := range nodes {
		if n.GPUs > 0 {
			count[n.GPUs]++
		}
	}
	if len(count) == 0 {
		return Site{}, errors.New("site cluster: no node has GPUs")
	}
	size := 0
	for g, c := range count {
		if c > count[size] || c == count[size] && g > size {
			size = g
		}
	}
	var kept []SiteNode
	var s Site
	types := map[string]int{}
	for _, n := range nodes {
		switch {
		case n.GPUs == 0:
			s.LeftOut = append(s.LeftOut, n.Name+" (no GPUs)")
		case n.GPUs != size:
			s.LeftOut = append(s.LeftOut, fmt.Sprintf("%s (%d GPUs, the model's nodes have %d)", n.Name, n.GPUs, size))
		case len(n.Partitions) == 0:
			s.LeftOut = append(s.LeftOut, n.Name+" (in no partition)")
		default:
			kept = append(kept, n)
			types[strings.ToLower(n.GPUType)]++
		}
	}
	spec := ClusterSpec{Nodes: len(kept), GPUsPerNode: size}
	for t, c := range types {
		if c > types[spec.GPUType] || c == types[spec.GPUType] && t < spec.GPUType {
			spec.GPUType = t
		}
	}
	spec.CPUsPerNode, spec.MemoryMBPerNode = kept[0].CPUs, kept[0].MemoryMB
	for _, n := range kept {
		spec.CPUsPerNode, spec.MemoryMBPerNode = min(spec.CPUsPerNode, n.CPUs), min(spec.MemoryMBPerNode, n.MemoryMB)
	}
	s.islands(kept, &spec)
	if len(spec.Parts) == 1 { // one island: a plain cluster of one partition
		spec.Partition, spec.GPUType, spec.Parts = spec.Parts[0].Name, spec.Parts[0].GPUType, nil
	}
	s.Cluster = spec.withDefaults()
	return s, nil
}

// HistoryTrace is a site's history as a trace: Jobs[i] of the trace is
// Source[i] of the history.
type HistoryTrace struct {
	Trace *Trace
	// Source is each trace job's history record, in trace order.
	Source []HistoryJob
	// Start is the trace's time 0: the earliest arrival.
	Start time.Time
	// LeftOut counts the jobs not in the trace, by reason.
	LeftOut map[string]int
}

// deadlineTokenRe matches a hint's deadline= (with the clock people write
// after a space) and weight= tokens, which FromHistory moves to the trace
// columns.
var (
	deadlineTokenRe = regexp.MustCompile(`\bdeadline=\S+(\s+\d{1,2}:\d{2}(:\d{2})?)?`)
	weightTokenRe   = regexp.MustCompile(`\bweight=\S+`)
)

// FromHistory turns a site's finished jobs into a trace on site's cluster:
// each job arrives when it became eligible (its submission, or its
// --begin), runs its real run time (end − start) on its GPU count and
// nodes, with its time limit, user and name, in the islands of its
// partition, and keeps its hint as written (a hint naming a catalog
// model, batch and iterations also gives the truth its model, so that a
// run at another size scales by the planner's time model). Jobs without
// GPUs, or in a partition with no modelled node, are left out and counted.
// A hint's deadline (an absolute time) becomes the trace's deadline_s.
func FromHistory(jobs []HistoryJob, site Site) HistoryTrace {
	ht := HistoryTrace{Trace: &Trace{}, LeftOut: map[string]int{}}
	var kept []HistoryJob
	for _, j := range jobs {
		switch {
		case j.GPUs <= 0:
			ht.Trace.CPUOnly++
			ht.LeftOut["no GPUs"]++
		case !j.End.After(j.Start) || j.Start.IsZero():
			ht.LeftOut["never ran"]++
		case len(site.islandsOf(j.Partition)) == 0:
			ht.LeftOut["partition not modelled"]++
		default:
			kept = append(kept, j)
		}
	}
	if len(kept) == 0 {
		return ht
	}
	arrival := func(j HistoryJob) time.Time {
		if j.Eligible.After(j.Submit) {
			return j.Eligible
		}
		return j.Submit
	}
	slices.SortStableFunc(kept, func(a, b HistoryJob) int {
		return cmp.Or(arrival(a).Compare(arrival(b)), cmp.Compare(a.ID, b.ID))
	})
	ht.Start = arrival(kept[0])
	sec := func(d time.Duration) float64 { return d.Seconds() }
	for _, j := range kept {
		tj := TraceJob{ID: strconv.FormatInt(j.ID, 10), Submit: sec(arrival(j).Sub(ht.Start)),
			Duration: sec(j.End.Sub(j.Start)), GPUs: j.GPUs, Nodes: j.Nodes, User: j.User, Name: j.Name,
			TimeLimit: sec(j.TimeLimit)}
		if isl := site.islandsOf(j.Partition); len(site.Cluster.Parts) > 0 {
			tj.Partition = strings.Join(isl, ",")
		}
		if h, ok, err := planner.ParseHints(j.Comment); ok && err == nil {
			tj.Hint = j.Comment
			if h.Model != "" && h.Batch > 0 && h.Iters > 0 {
				tj.Model, tj.BatchSize, tj.Iterations = h.Model, h.Batch, h.Iters
			}
			if !h.Deadline.IsZero() {
				tj.Deadline = max(1, sec(h.Deadline.Sub(ht.Start)))
				tj.TardinessWeight = h.Weight
				tj.Hint = strings.Join(strings.Fields(weightTokenRe.ReplaceAllString(deadlineTokenRe.ReplaceAllString(tj.Hint, ""), "")), " ")
			}
		} else if ok {
			tj.Hint = j.Comment // a hint Strata refuses: the daemon sees it too
		}
		ht.Trace.Jobs = append(ht.Trace.Jobs, tj)
		ht.Source = append(ht.Source, j)
	}
	return ht
}

// islandsOf is the islands of a job's partition field (comma-separated
// when it listed several), in order, each once.
func (s Site) islandsOf(field string) []string {
	var out []string
	for _, p := range strings.Split(field, ",") {
		for _, i := range s.Islands[strings.TrimSpace(p)] {
			if !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// islands groups kept into the islands of spec (nodes with the same
// partitions and GPU type, in the order their first node is listed), each
// named after a partition that holds exactly its nodes where there is one,
// and maps every partition to its islands (s.Islands).
func (s *Site) islands(kept []SiteNode, spec *ClusterSpec) {
	keyOf := func(n SiteNode) string {
		ps := slices.Clone(n.Partitions)
		slices.Sort(ps)
		return strings.Join(ps, ",") + "|" + strings.ToLower(n.GPUType)
	}
	var keys []string
	members := map[string][]SiteNode{}
	partNodes := map[string]int{}
	for _, n := range kept {
		k := keyOf(n)
		if _, ok := members[k]; !ok {
			keys = append(keys, k)
		}
		members[k] = append(members[k], n)
		for _, p := range n.Partitions {
			partNodes[p]++
		}
	}
	s.Islands = map[string][]string{}
	used := map[string]bool{}
	for i, k := range keys {
		ns := members[k]
		name := ""
		for _, p := range ns[0].Partitions {
			if partNodes[p] == len(ns) && islandNameRe.MatchString(p) && !used[p] {
				name = p
				break
			}
		}
		for j := i + 1; name == ""; j++ {
			if c := "island" + strconv.Itoa(j); !used[c] && partNodes[c] == 0 {
				name = c
			}
		}
		used[name] = true
		typ := strings.ToLower(ns[0].GPUType)
		spec.Parts = append(spec.Parts, PartSpec{Name: name, Nodes: len(ns), GPUType: typ})
		for _, p := range ns[0].Partitions {
			s.Islands[p] = append(s.Islands[p], name)
		}
	}
}
