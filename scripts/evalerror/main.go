// Command evalerror renders the prediction-error section of
// docs/evaluation.md from the simulations scripts/evaluate-error.sh ran
// (JSON results of strata simulate in -dir).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

type result struct {
	Policy            string  `json:"policy"`
	AvgJCT            float64 `json:"avg_jct_s"`
	TimeLimitKills    int     `json:"time_limit_kills"`
	LoweredLimitKills int     `json:"lowered_limit_kills"`
	LimitsLowered     int     `json:"limits_lowered"`
	LostGPUHours      float64 `json:"lost_gpu_hours"`
	Honesty           *struct {
		HonestAvgJCT    float64 `json:"honest_avg_jct_s"`
		DishonestAvgJCT float64 `json:"dishonest_avg_jct_s"`
	} `json:"honesty"`
}

func main() {
	dir := flag.String("dir", "docs/img/eval/error", "folder of the JSON results")
	seeds := flag.String("seeds", "1 2 3", "seeds simulated")
	liarSeeds := flag.String("liar-seeds", "", "seeds of the liars' runs (default: -seeds)")
	flag.Parse()
	if *liarSeeds == "" {
		liarSeeds = seeds
	}
	if err := render(os.Stdout, *dir, strings.Fields(*seeds), strings.Fields(*liarSeeds)); err != nil {
		fmt.Fprintln(os.Stderr, "evalerror:", err)
		os.Exit(1)
	}
}

func load(path string) (map[string]result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Results []result `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]result{}
	for _, r := range doc.Results {
		out[r.Policy] = r
	}
	return out, nil
}

var workloads = []string{"1", "2", "3", "4", "5", "6"}

func render(w io.Writer, dir string, seeds, liarSeeds []string) error {
	fmt.Fprintf(w, "### Prediction error: what a wrong model costs (`scripts/evaluate-error.sh`)\n\n")
	fmt.Fprintf(w, "Pollux workloads 1–6 in Slurm mode, realistic knowledge, 20 users, seeds %s; each job's true run\n", strings.Join(seeds, ", "))
	fmt.Fprintf(w, "is its model's time × exp(σ·z) (`--speed-noise σ`), and with `--speed-error 3` every model is also up\n")
	fmt.Fprintf(w, "to 3× off the catalog. *Defaults* is `strata run` with no configuration (what `strata simulate`\n")
	fmt.Fprintf(w, "runs without one); *binding* adds `bind-claims = true`. Kills and GPU-hours are summed over the\n")
	fmt.Fprintf(w, "%d runs of a row; smd / Slurm alone is the mean and the worst of the runs' average-JCT ratios.\n\n", len(workloads)*len(seeds))
	fmt.Fprintln(w, "| error | setting | killed at a limit Strata lowered | all time-limit kills | GPU-h lost | smd / Slurm alone, mean | worst |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for _, e := range [][2]string{{"0.15", "1"}, {"0.3", "1"}, {"0.5", "1"}, {"0.7", "1"}, {"0.5", "3"}} {
		for _, mode := range []string{"default", "bind"} {
			var lowered, kills, n int
			var lost, sum, worst float64
			for _, wl := range workloads {
				for _, s := range seeds {
					r, err := load(filepath.Join(dir, fmt.Sprintf("err-w%s-s%s-n%s-e%s-%s.json", wl, s, e[0], e[1], mode)))
					if err != nil {
						return err
					}
					smd, slurm := r["smd"], r["slurm"]
					lowered += smd.LoweredLimitKills
					kills += smd.TimeLimitKills
					lost += smd.LostGPUHours
					q := smd.AvgJCT / slurm.AvgJCT
					sum += q
					worst = max(worst, q)
					n++
				}
			}
			label := fmt.Sprintf("σ %s", e[0])
			if e[1] != "1" {
				label += fmt.Sprintf(", per model ×%s", e[1])
			}
			setting := "defaults"
			if mode == "bind" {
				setting = "binding"
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d | %.0f | %.3f | %.3f |\n", label, setting, lowered, kills, lost, sum/float64(n), worst)
		}
	}
	return renderLiars(w, dir, liarSeeds)
}

// renderLiars writes the liars' table: per lie and tactic, each
// workload's liars' JCT over their honest twin's, and the honest users'
// worst ratio.
func renderLiars(w io.Writer, dir string, seeds []string) error {
	fmt.Fprintf(w, "\n**Liars** (the daemon's defaults, σ 0.5 and per model ×3, seeds %s): a tenth of the users understate every\n", strings.Join(seeds, ", "))
	fmt.Fprintf(w, "hint 3× or 100×, with a tactic — *plain*; *preempt* (writes `preempt=yes` without `--requeue`);\n")
	fmt.Fprintf(w, "*tiny* (two honest 2-minute jobs before each lie). Each cell is the liars' average JCT over their\n")
	fmt.Fprintf(w, "all-honest twin's (≥ 1: lying does not pay), the mean over the seeds ± its standard error (the\n")
	fmt.Fprintf(w, "seeds' spread over √n: a cell within about two of 1 is not told apart from 1), and in brackets the\n")
	fmt.Fprintf(w, "honest users' ratio, the mean over the seeds and the worst seed. The first two rows are the noise: nobody lies, and\n")
	fmt.Fprintf(w, "Slurm's `sched_interval` is 61 s instead of 60 (`--sched-interval 61s`), against the same twins.\n\n")
	fmt.Fprint(w, "| lie | tactic |")
	for _, wl := range workloads {
		fmt.Fprintf(w, " workload %s |", wl)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range workloads {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, x := range []string{"null", "3", "100"} {
		for _, tac := range []string{"plain", "preempt", "tiny"} {
			if x == "null" && tac == "preempt" {
				continue // the same as plain when nobody lies
			}
			lie := x + "×"
			if x == "null" {
				lie = "none, timing +1 s"
			}
			fmt.Fprintf(w, "| %s | %s |", lie, tac)
			for _, wl := range workloads {
				var liars, honest []float64
				var honestWorst float64
				for _, s := range seeds {
					h, err := load(filepath.Join(dir, fmt.Sprintf("lie-w%s-s%s-x1-%s.json", wl, s, tac)))
					if err != nil {
						return err
					}
					name := fmt.Sprintf("lie-w%s-s%s-x%s-%s.json", wl, s, x, tac)
					if x == "null" {
						name = fmt.Sprintf("lie-w%s-s%s-null-%s.json", wl, s, tac)
					}
					l, err := load(filepath.Join(dir, name))
					if err != nil {
						return err
					}
					hh, lh := h["smd"].Honesty, l["smd"].Honesty
					if hh == nil || lh == nil || hh.DishonestAvgJCT == 0 || hh.HonestAvgJCT == 0 {
						return fmt.Errorf("workload %s seed %s: no honesty statistics", wl, s)
					}
					liars = append(liars, lh.DishonestAvgJCT/hh.DishonestAvgJCT)
					honest = append(honest, lh.HonestAvgJCT/hh.HonestAvgJCT)
					honestWorst = max(honestWorst, lh.HonestAvgJCT/hh.HonestAvgJCT)
				}
				m, se := meanSE(liars)
				hm, _ := meanSE(honest)
				fmt.Fprintf(w, " %.2f ±%.2f (%.2f, %.2f) |", m, se, hm, honestWorst)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// meanSE is the mean of xs and its standard error (the sample standard
// deviation over √n; 0 for fewer than two values).
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}
