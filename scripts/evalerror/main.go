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
	"slices"
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
	timings := flag.String("timings", "60 61 62 63 64", "sched_interval seconds of the liars' runs")
	nullTimings := flag.String("null-timings", "65 66 67 68 69", "sched_interval seconds of the null rows' runs")
	wideTimings := flag.String("wide-timings", "70 71 72 73 74 75 76 77 78 79", "sched_interval seconds of the wide null rows' runs (against the twins at -timings and -null-timings together)")
	flag.Parse()
	if *liarSeeds == "" {
		liarSeeds = seeds
	}
	lt := liarTimings{strings.Fields(*timings), strings.Fields(*nullTimings), strings.Fields(*wideTimings)}
	if err := render(os.Stdout, *dir, strings.Fields(*seeds), strings.Fields(*liarSeeds), lt); err != nil {
		fmt.Fprintln(os.Stderr, "evalerror:", err)
		os.Exit(1)
	}
}

func load(path string) (map[string]result, error) {
	docs, err := loadAll(path)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: %d result documents, want 1", path, len(docs))
	}
	return docs[0], nil
}

// loadAll reads every result document in path (a liar cell's file holds
// one per timing, one after another), each by policy.
func loadAll(path string) ([]map[string]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []map[string]result
	dec := json.NewDecoder(f)
	for {
		var doc struct {
			Results []result `json:"results"`
		}
		if err := dec.Decode(&doc); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		m := map[string]result{}
		for _, r := range doc.Results {
			m[r.Policy] = r
		}
		out = append(out, m)
	}
}

var workloads = []string{"1", "2", "3", "4", "5", "6"}

func render(w io.Writer, dir string, seeds, liarSeeds []string, lt liarTimings) error {
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
	return renderLiars(w, dir, liarSeeds, lt)
}

// liarTimings are the sched_interval seconds the liars' cells ran at
// (each file one result per timing, averaged), the null rows' others, and
// the wide null rows' (as many as runs and null together).
type liarTimings struct{ runs, null, wide []string }

// part is a result file and the number of timings it holds.
type part struct {
	path string
	want int
}

// honestyMeanOf is honestyMean over several files, each weighing by its
// timings.
func honestyMeanOf(dir string, parts []part) (honest, dishonest float64, err error) {
	n := 0
	for _, p := range parts {
		h, d, err := honestyMean(filepath.Join(dir, p.path), p.want)
		if err != nil {
			return 0, 0, err
		}
		honest += h * float64(p.want)
		dishonest += d * float64(p.want)
		n += p.want
	}
	return honest / float64(n), dishonest / float64(n), nil
}

// honestyMean is the smd run's honest and dishonest users' average JCT,
// each averaged over the timings in path (want of them).
func honestyMean(path string, want int) (honest, dishonest float64, err error) {
	docs, err := loadAll(path)
	if err != nil {
		return 0, 0, err
	}
	if len(docs) != want {
		return 0, 0, fmt.Errorf("%s: %d results, want one per timing (%d)", path, len(docs), want)
	}
	for _, d := range docs {
		h := d["smd"].Honesty
		if h == nil || h.HonestAvgJCT == 0 || h.DishonestAvgJCT == 0 {
			return 0, 0, fmt.Errorf("%s: no honesty statistics", path)
		}
		honest += h.HonestAvgJCT / float64(want)
		dishonest += h.DishonestAvgJCT / float64(want)
	}
	return honest, dishonest, nil
}

// liarRow is one row of the liars' table: a lie (factor x; "null": none,
// at the null timings; "wide": none, at the wide timings against the twins
// at both the runs' and the null's), a tactic, and whether the records were off
// (--no-trust, in the lying run and its twin alike).
type liarRow struct {
	x, tac   string
	noRecord bool
}

// liarRows are the table's rows in order: the null; a 1.2× misstatement,
// smaller than the hints' own error, as the control of how far any change
// in a tenth of the users' claims moves the others; the lies; and the
// same without records (what the records change).
var liarRows = []liarRow{
	{"null", "plain", false}, {"null", "tiny", false},
	{"wide", "plain", false}, {"wide", "tiny", false},
	{"1.2", "plain", false}, {"1.2", "tiny", false},
	{"3", "plain", false}, {"3", "preempt", false}, {"3", "tiny", false},
	{"100", "plain", false}, {"100", "preempt", false}, {"100", "tiny", false},
	{"1.2", "plain", true}, {"1.2", "tiny", true},
	{"3", "plain", true}, {"3", "tiny", true},
}

// files are the row's twin's and run's result files for workload wl and
// seed s.
func (r liarRow) files(wl, s string, lt liarTimings) (twin, run []part) {
	suffix := ""
	if r.noRecord {
		suffix = "-norecord"
	}
	twin = []part{{fmt.Sprintf("lie-w%s-s%s-x1-%s%s.json", wl, s, r.tac, suffix), len(lt.runs)}}
	null := part{fmt.Sprintf("lie-w%s-s%s-null-%s.json", wl, s, r.tac), len(lt.null)}
	switch r.x {
	case "null":
		return twin, []part{null}
	case "wide":
		return append(twin, null), []part{{fmt.Sprintf("lie-w%s-s%s-wide-%s.json", wl, s, r.tac), len(lt.wide)}}
	}
	return twin, []part{{fmt.Sprintf("lie-w%s-s%s-x%s-%s%s.json", wl, s, r.x, r.tac, suffix), len(lt.runs)}}
}

func (r liarRow) label() string {
	switch {
	case r.x == "null":
		return "none, other timings"
	case r.x == "wide":
		return "none, 10 against 10 timings"
	case r.x == "1.2" && !r.noRecord:
		return "1.2× (control)"
	case r.noRecord:
		return r.x + "×, no records"
	}
	return r.x + "×"
}

// renderLiars writes the liars' table: per row, each workload's liars'
// JCT over their honest twin's and the honest users' mean and worst ratio
// over the seeds, every run averaged over lt's timings, and how many of
// the row's seeds moved the honest users above sim.HonestTarget.
func renderLiars(w io.Writer, dir string, seeds []string, lt liarTimings) error {
	fmt.Fprintf(w, "\n**Liars** (the daemon's defaults, σ 0.5 and per model ×3, seeds %s): a tenth of the users understate every\n", strings.Join(seeds, ", "))
	fmt.Fprintf(w, "hint 3× or 100×, with a tactic — *plain*; *preempt* (writes `preempt=yes` without `--requeue`);\n")
	fmt.Fprintf(w, "*tiny* (two honest 2-minute jobs before each lie). Every run is repeated at %d timings of Slurm's\n", len(lt.runs))
	fmt.Fprintf(w, "scheduler (`--sched-interval` %s s) and each group's average JCT averaged over them: a single run\n", strings.Join(lt.runs, ", "))
	fmt.Fprintf(w, "moves by up to 1.4× when the interval moves by a second. Each cell is the liars' average JCT over their\n")
	fmt.Fprintf(w, "all-honest twin's (≥ 1: lying does not pay), the mean over the seeds ± its standard error (the\n")
	fmt.Fprintf(w, "seeds' spread over √n: a cell within about two of 1 is not told apart from 1), then the same over\n")
	fmt.Fprintf(w, "the first three seeds alone, and in brackets the honest users' ratio, the mean over the seeds and\n")
	fmt.Fprintf(w, "the worst seed; the last column counts the seeds, over all workloads, on which the honest users'\n")
	fmt.Fprintf(w, "ratio is above %.2f. The first two rows are the noise left after averaging: nobody lies, and the twins\n", honestTarget)
	fmt.Fprintf(w, "run at %d other timings (%s s) against the same twins; the next two the same with %d timings (%s s)\n", len(lt.null), strings.Join(lt.null, ", "), len(lt.wide), strings.Join(lt.wide, ", "))
	fmt.Fprintf(w, "against the twins at both sets. *1.2× (control)* is a misstatement smaller\n")
	fmt.Fprintf(w, "than the hints' own error (an optimistic honest user; alone it stays below the 1.5× from which the\n")
	fmt.Fprintf(w, "records square a correction): how far\n")
	fmt.Fprintf(w, "any change in a tenth of the users' claims moves the others. *No records* runs the lie and its twin with\n")
	fmt.Fprintf(w, "`--no-trust`: nothing corrects or distrusts a claim.\n\n")
	fmt.Fprint(w, "| lie | tactic |")
	for _, wl := range workloads {
		fmt.Fprintf(w, " workload %s |", wl)
	}
	fmt.Fprintf(w, " honest > %.2f |\n|---|---|", honestTarget)
	for range workloads {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w, "---:|")
	first := min(3, len(seeds))
	for _, row := range liarRows {
		fmt.Fprintf(w, "| %s | %s |", row.label(), row.tac)
		above, all := 0, 0
		for _, wl := range workloads {
			var liars, honest []float64
			for _, s := range seeds {
				twin, run := row.files(wl, s, lt)
				hh, hd, err := honestyMeanOf(dir, twin)
				if err != nil {
					return err
				}
				lh, ld, err := honestyMeanOf(dir, run)
				if err != nil {
					return err
				}
				liars = append(liars, ld/hd)
				honest = append(honest, lh/hh)
				if lh/hh > honestTarget {
					above++
				}
				all++
			}
			m, se := meanSE(liars)
			m3, se3 := meanSE(liars[:first])
			hm, _ := meanSE(honest)
			fmt.Fprintf(w, " %.2f ±%.2f; %.2f ±%.2f (%.2f, %.2f) |", m, se, m3, se3, hm, slices.Max(honest))
		}
		fmt.Fprintf(w, " %d of %d |\n", above, all)
	}
	fmt.Fprintln(w)
	return nil
}

// honestTarget is issue 30's bound on the honest users' ratio
// (sim.HonestTarget; this command reads JSON only).
const honestTarget = 1.05

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
