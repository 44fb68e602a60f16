package simulate

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/strata-hpc/strata/sim"
)

// SiteReport is the answer of `strata simulate --from-slurmdbd`: the
// expected change in waiting time and JCT, per partition and per user,
// when Strata's policies run beside Slurm on the site's own history.
type SiteReport struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Cluster string    `json:"cluster"`
	// Islands lists each partition's simulated islands (partitions that
	// share nodes are split where they differ).
	Islands map[string][]string `json:"islands"`
	// NodesLeftOut are the site's nodes the model has no room for.
	NodesLeftOut []string `json:"nodes_left_out,omitempty"`
	// Jobs is the number of jobs simulated; Hinted those with a hint of
	// their own; LeftOut the ended jobs not simulated, by reason.
	Jobs      int            `json:"jobs"`
	Hinted    int            `json:"hinted"`
	LeftOut   map[string]int `json:"left_out,omitempty"`
	Predictor string         `json:"predictor"`
	// Policies are the comparisons, one per policy, each against Slurm
	// alone.
	Policies []SitePolicy `json:"policies"`
}

// SitePolicy compares one policy with Slurm alone.
type SitePolicy struct {
	Policy string `json:"policy"`
	// All, Partitions and Users are the groups: every job, each
	// partition (the job's partition field as slurmdbd recorded it), each
	// user.
	All        SiteGroup   `json:"all"`
	Partitions []SiteGroup `json:"partitions"`
	Users      []SiteGroup `json:"users"`
	// Unfinished counts jobs that did not complete in one of the two runs
	// (left out of the means); LinearScaled the starts at another size
	// than asked whose run time had to be scaled linearly (no model).
	Unfinished   int `json:"unfinished"`
	LinearScaled int `json:"linear_scaled"`
}

// SiteGroup is one group's means, in seconds: waiting time (start −
// eligible) and JCT (end − eligible) as they really were (History), under
// the model of Slurm alone, and under the policy; Change* are the policy's
// relative change against Slurm alone (−0.25: 25 % shorter; 0 when Slurm
// alone's mean is 0). Only jobs that completed in both runs count.
type SiteGroup struct {
	Name        string  `json:"name"`
	Jobs        int     `json:"jobs"`
	WaitHistory float64 `json:"wait_history_s"`
	WaitSlurm   float64 `json:"wait_slurm_s"`
	WaitPolicy  float64 `json:"wait_policy_s"`
	WaitChange  float64 `json:"wait_change"`
	JCTHistory  float64 `json:"jct_history_s"`
	JCTSlurm    float64 `json:"jct_slurm_s"`
	JCTPolicy   float64 `json:"jct_policy_s"`
	JCTChange   float64 `json:"jct_change"`
}

// siteSums adds up one group's waits and JCTs (history, Slurm alone,
// policy).
type siteSums struct {
	name string
	jobs int
	sums [6]float64
}

// compareSite builds one policy's comparison from the job rows of Slurm
// alone (base) and the policy (r); ht gives each job's history.
func compareSite(ht sim.HistoryTrace, base, r *sim.Result) SitePolicy {
	sp := SitePolicy{Policy: r.Policy, LinearScaled: r.LinearScaled}
	all := &siteSums{name: "jobs"}
	byID := func(rows []sim.JobRow) map[string]sim.JobRow {
		m := make(map[string]sim.JobRow, len(rows))
		for _, row := range rows {
			m[row.ID] = row
		}
		return m
	}
	b, p := byID(base.JobRows), byID(r.JobRows)
	parts, users := map[string]*siteSums{}, map[string]*siteSums{}
	group := func(m map[string]*siteSums, name string) *siteSums {
		if m[name] == nil {
			m[name] = &siteSums{name: name}
		}
		return m[name]
	}
	for i, tj := range ht.Trace.Jobs {
		rb, rp := b[tj.ID], p[tj.ID]
		if rb.Start == nil || rb.End == nil || rp.Start == nil || rp.End == nil || rb.State != "done" || rp.State != "done" {
			sp.Unfinished++
			continue
		}
		src := ht.Source[i]
		arrival := ht.Start.Add(time.Duration(tj.Submit * float64(time.Second)))
		v := [6]float64{src.Start.Sub(arrival).Seconds(), *rb.Start - tj.Submit, *rp.Start - tj.Submit,
			src.End.Sub(arrival).Seconds(), *rb.End - tj.Submit, *rp.End - tj.Submit}
		for _, g := range []*siteSums{all, group(parts, src.Partition), group(users, src.User)} {
			g.jobs++
			for k := range v {
				g.sums[k] += max(0, v[k])
			}
		}
	}
	sp.All = all.group()
	sp.Partitions, sp.Users = sortedGroups(parts), sortedGroups(users)
	return sp
}

// group is the sums' means and changes.
func (s *siteSums) group() SiteGroup {
	g := SiteGroup{Name: s.name, Jobs: s.jobs}
	if s.jobs == 0 {
		return g
	}
	n := float64(s.jobs)
	g.WaitHistory, g.WaitSlurm, g.WaitPolicy = s.sums[0]/n, s.sums[1]/n, s.sums[2]/n
	g.JCTHistory, g.JCTSlurm, g.JCTPolicy = s.sums[3]/n, s.sums[4]/n, s.sums[5]/n
	g.WaitChange, g.JCTChange = change(g.WaitSlurm, g.WaitPolicy), change(g.JCTSlurm, g.JCTPolicy)
	return g
}

func change(base, v float64) float64 {
	if base <= 0 {
		return 0
	}
	return v/base - 1
}

func sortedGroups(m map[string]*siteSums) []SiteGroup {
	out := make([]SiteGroup, 0, len(m))
	for _, s := range m {
		out = append(out, s.group())
	}
	slices.SortFunc(out, func(a, b SiteGroup) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// WriteTable prints the report for people: what was simulated, then per
// policy one table of partitions and one of users.
func (r *SiteReport) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("Jobs that ended %s – %s (slurmdbd): %d simulated, %d with a hint of their own",
		r.From.Format(time.RFC3339), r.To.Format(time.RFC3339), r.Jobs, r.Hinted)
	if len(r.LeftOut) > 0 {
		var s []string
		for _, k := range slices.Sorted(maps.Keys(r.LeftOut)) {
			s = append(s, fmt.Sprintf("%d %s", r.LeftOut[k], k))
		}
		ew.printf("; left out: %s", strings.Join(s, ", "))
	}
	ew.printf(".\nCluster %s", r.Cluster)
	var isl []string
	for _, p := range slices.Sorted(maps.Keys(r.Islands)) {
		isl = append(isl, p+"="+strings.Join(r.Islands[p], "+"))
	}
	ew.printf(" (partitions: %s)", strings.Join(isl, " "))
	if len(r.NodesLeftOut) > 0 {
		ew.printf("; nodes left out: %s", strings.Join(r.NodesLeftOut, ", "))
	}
	ew.printf(".\nSlurm mode; jobs without a hint are timed from history (predictor %s), as the daemon times them.\n", r.Predictor)
	for _, p := range r.Policies {
		ew.printf("\n%s against Slurm alone (means over %d jobs that completed in both runs; %d did not",
			p.Policy, p.All.Jobs, p.Unfinished)
		if p.LinearScaled > 0 {
			ew.printf("; %d starts at another size scaled linearly, no time model", p.LinearScaled)
		}
		ew.printf("):\n")
		tw := tabwriter.NewWriter(ew, 2, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "\tJOBS\tWAIT real\tWAIT slurm\tWAIT %s\tCHANGE\tJCT real\tJCT slurm\tJCT %s\tCHANGE\n", p.Policy, p.Policy)
		row := func(kind string, g SiteGroup) {
			fmt.Fprintf(tw, "%s %s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", kind, g.Name, g.Jobs,
				secs(g.WaitHistory), secs(g.WaitSlurm), secs(g.WaitPolicy), pct(g.WaitSlurm, g.WaitChange),
				secs(g.JCTHistory), secs(g.JCTSlurm), secs(g.JCTPolicy), pct(g.JCTSlurm, g.JCTChange))
		}
		row("all", p.All)
		for _, g := range p.Partitions {
			row("partition", g)
		}
		for _, g := range p.Users {
			row("user", g)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return ew.err
}

func secs(s float64) string { return term.Duration(time.Duration(s * float64(time.Second))) }

// pct is a relative change as people read it; "-" when Slurm alone's
// mean is 0 (no change can be stated).
func pct(base, c float64) string {
	if base <= 0 {
		return "-"
	}
	return fmt.Sprintf("%+.0f %%", 100*c)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
