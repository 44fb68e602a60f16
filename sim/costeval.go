package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// FirstPrinciple are ANDREAS' first-principle baselines (algorithms.md
// A2): the queue orders against which it reports its cost reduction.
var FirstPrinciple = []string{"fifo", "edf", "priority"}

// writeCostTable writes the cost terms of the runs that have them
// (nothing when none has).
func (r *Report) writeCostTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := false
	for _, x := range r.Results {
		c := x.Cost
		if c == nil {
			continue
		}
		if !head {
			fmt.Fprintln(tw, "cost terms\tΣ w·JCT s\tenergy cost\ttardiness s\ttardiness cost\tmissed\tcost\tobjective\t")
			head = true
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.0f\t%.2f\t%d/%d\t%.2f\t%.0f\t\n", x.Policy, c.WeightedJCT, c.EnergyCost,
			c.Tardiness, c.TardinessCost, c.Missed, c.DeadlineJobs, c.Cost, c.Objective)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write simulation table: %w", err)
	}
	return nil
}

// WriteCostEvaluation writes the energy- and deadline-aware comparison in
// Markdown: per report (workload) the cost (energy + tardiness, money) of
// every policy, and the reduction of each policy other than the
// first-principle baselines (and Slurm alone) against the best and the
// mean of them; then every cost term per workload.
func WriteCostEvaluation(w io.Writer, reps []*Report) error {
	var b strings.Builder
	var pols []string
	for _, r := range reps {
		for _, x := range r.Results {
			if !slices.Contains(pols, x.Policy) {
				pols = append(pols, x.Policy)
			}
		}
	}
	var cmp []string // the policies compared with the baselines
	head := "| workload | " + strings.Join(pols, " | ") + " |"
	for _, p := range pols {
		if p != PolicySlurm && !slices.Contains(FirstPrinciple, p) {
			cmp = append(cmp, p)
			head += fmt.Sprintf(" %s vs best FP | %s vs mean FP |", p, p)
		}
	}
	b.WriteString(head + "\n")
	b.WriteString("| --- |" + strings.Repeat(" ---: |", len(pols)+2*len(cmp)) + "\n")
	sum := map[string]*Result{} // the costs summed over the reports
	for _, r := range reps {
		by := map[string]*Result{}
		for _, x := range r.Results {
			by[x.Policy] = x
			if x.Cost == nil {
				continue
			}
			if sum[x.Policy] == nil {
				sum[x.Policy] = &Result{Cost: &CostTerms{}}
			}
			t := sum[x.Policy]
			t.Cost.Cost += x.Cost.Cost
			t.Unfinished += x.Lost()
		}
		costRow(&b, r.name(), pols, cmp, by)
	}
	if len(reps) > 1 {
		costRow(&b, "**all workloads (sum)**", pols, cmp, sum)
	}
	b.WriteString("\nCost = energy cost (all GPUs over the makespan at the kWh price) + Σ tardiness weight × seconds late," +
		" in the price's currency. FP = the first-principle baselines fifo, edf and priority; \"vs\" is the cost" +
		" reduction (positive: cheaper). \"⚠ N unfinished\": N jobs never completed; they count as deadline misses" +
		" without tardiness, so the cost is a lower bound.\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "\n#### %s (%d jobs, %s, interval %g s)\n\n", r.name(), r.TraceJobs, r.Cluster, r.IntervalS)
		b.WriteString("| policy | jobs | Σ w·JCT s | avg JCT s | energy kWh | energy cost | tardiness s | tardiness cost |" +
			" deadline misses | cost | objective | restarts | anomalies |\n")
		b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
		for _, x := range r.Results {
			c := x.Cost
			if c == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.1f | %.2f | %.0f | %.2f | %d/%d (%.1f %%) | %.2f | %.0f | %d | %s |\n",
				x.Policy, x.Jobs, c.WeightedJCT, x.AvgJCT, x.EnergyKWh, c.EnergyCost, c.Tardiness, c.TardinessCost,
				c.Missed, c.DeadlineJobs, 100*c.MissRate, c.Cost, c.Objective, x.Restarts, flags(x))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write cost evaluation: %w", err)
	}
	return nil
}

// costRow writes one row of the cost table.
func costRow(b *strings.Builder, name string, pols, cmp []string, by map[string]*Result) {
	fmt.Fprintf(b, "| %s |", name)
	for _, p := range pols {
		fmt.Fprintf(b, " %s |", costCell(by[p]))
	}
	best, mean := fpCost(by)
	for _, p := range cmp {
		fmt.Fprintf(b, " %s | %s |", reduction(by[p], best), reduction(by[p], mean))
	}
	b.WriteString("\n")
}

// fpCost is the least and the mean cost of the first-principle baselines
// in by (NaN when none ran).
func fpCost(by map[string]*Result) (best, mean float64) {
	best, n := math.Inf(1), 0
	for _, p := range FirstPrinciple {
		if x := by[p]; x != nil && x.Cost != nil {
			best = math.Min(best, x.Cost.Cost)
			mean += x.Cost.Cost
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return best, mean / float64(n)
}

func costCell(x *Result) string {
	if x == nil || x.Cost == nil {
		return "–"
	}
	if n := x.Lost(); n > 0 {
		return fmt.Sprintf("%.2f ⚠ %d unfinished", x.Cost.Cost, n)
	}
	return fmt.Sprintf("%.2f", x.Cost.Cost)
}

// reduction formats 1 − cost / base as a percentage.
func reduction(x *Result, base float64) string {
	if x == nil || x.Cost == nil || !(base > 0) {
		return "–"
	}
	return fmt.Sprintf("%+.0f %%", 100*(1-x.Cost.Cost/base))
}
