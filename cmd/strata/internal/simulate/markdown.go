package simulate

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/strata-hpc/strata/sim"
)

// Markdown writes the evaluation tables of the JSON reports at paths (the
// hidden --markdown mode used by scripts/evaluate.sh): the dishonest-users
// comparison with honesty (sim.WriteHonestyEvaluation), one row per policy
// run with whatIf, else the cost comparison when the first report has cost
// terms (deadlines), else the Slurm-mode or ideal-mode comparison, chosen by
// the scheduler of the first report.
func Markdown(w io.Writer, paths []string, whatIf, honesty bool) error {
	if len(paths) == 0 {
		return UsageError{Err: errors.New("--markdown needs JSON report files as arguments")}
	}
	var reps []*sim.Report
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("open report: %w", err)
		}
		r, err := sim.ReadReport(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		reps = append(reps, r)
	}
	if honesty {
		return sim.WriteHonestyEvaluation(w, reps)
	}
	if whatIf {
		return sim.WriteWhatIfs(w, reps)
	}
	if len(reps[0].Results) > 0 && reps[0].Results[0].Cost != nil {
		return sim.WriteCostEvaluation(w, reps)
	}
	if len(reps[0].Results) > 0 && reps[0].Results[0].Scheduler == sim.SchedulerSlurm {
		return sim.WriteSlurmEvaluation(w, reps)
	}
	return sim.WriteEvaluation(w, reps)
}
