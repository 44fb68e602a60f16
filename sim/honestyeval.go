package sim

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Targets of the dishonest-users evaluation (issue 22): honest users'
// average JCT at most HonestTarget × the same jobs' in the all-honest run,
// and the dishonest users' not below their own there (lying gains
// nothing).
const (
	HonestTarget    = 1.05
	DishonestTarget = 1.0
)

// writeHonestyLines adds each result's honest/dishonest split to the text
// table (nothing when no result has one).
func (r *Report) writeHonestyLines(w io.Writer) {
	for _, x := range r.Results {
		if h := x.Honesty; h != nil {
			fmt.Fprintf(w, "%s: honest users %d jobs avg JCT %s; dishonest users (%s) %d jobs avg JCT %s, %d killed at their limit\n",
				x.Policy, h.HonestJobs, HumanDuration(h.HonestAvgJCT), strings.Join(h.DishonestUsers, ","),
				h.DishonestJobs, HumanDuration(h.DishonestAvgJCT), h.DishonestKills)
		}
	}
}

// WriteHonestyEvaluation writes the dishonest-users table from reports
// grouped by trace and knowledge: the first report of each group is the
// all-honest run
// (the same users marked, --dishonest F:1), every later one a run to
// compare with it; one row per policy of a later report that the base
// also ran: honest and dishonest users' average JCT in both, their ratios
// against the targets, the kills at the time limit and the limits Strata
// lowered.
func WriteHonestyEvaluation(w io.Writer, reps []*Report) error {
	var b strings.Builder
	b.WriteString("| run | policy | honest avg JCT s (all honest) | honest avg JCT s | honest ratio | dishonest avg JCT s (all honest) | dishonest avg JCT s | dishonest ratio | kills (dishonest) | limits lowered |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	base := map[string]*Report{}
	rows := 0
	for _, r := range reps {
		key := r.Trace + "\x00" + r.Knowledge
		bs, ok := base[key]
		if !ok {
			base[key] = r
			continue
		}
		for _, x := range r.Results {
			y := findResult(bs, x.Policy)
			if x.Honesty == nil || y == nil || y.Honesty == nil {
				continue
			}
			h, g := x.Honesty, y.Honesty
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %s | %.0f | %.0f | %s | %d (%d) | %d |\n", r.name(), x.Policy,
				g.HonestAvgJCT, h.HonestAvgJCT, honestyMark(h.HonestAvgJCT, g.HonestAvgJCT, func(q float64) bool { return q <= HonestTarget }),
				g.DishonestAvgJCT, h.DishonestAvgJCT, honestyMark(h.DishonestAvgJCT, g.DishonestAvgJCT, func(q float64) bool { return q >= DishonestTarget }),
				x.TimeLimitKills, h.DishonestKills, x.LimitsLowered)
			rows++
		}
	}
	if rows == 0 {
		return errors.New("honesty tables: no run with dishonest users after an all-honest one of the same trace")
	}
	b.WriteString("\nAverage JCT in seconds of the same jobs in the all-honest run and in the run named. ✓/✗: honest users' " +
		"average JCT at most 1.05 × theirs with nobody lying; dishonest users' not below theirs when honest (lying gains nothing). " +
		"kills: jobs killed at their time limit (each resubmitted by its user), those of dishonest users in brackets.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// findResult is the report's result of the named policy (nil: none).
func findResult(r *Report, policy string) *Result {
	for _, x := range r.Results {
		if x.Policy == policy {
			return x
		}
	}
	return nil
}

// honestyMark formats x / base with a ✓ when ok.
func honestyMark(x, base float64, ok func(float64) bool) string {
	if base == 0 || x == 0 {
		return "–"
	}
	q := x / base
	if ok(q) {
		return fmt.Sprintf("%.3f ✓", q)
	}
	return fmt.Sprintf("%.3f ✗", q)
}
