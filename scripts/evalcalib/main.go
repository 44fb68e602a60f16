// Command evalcalib measures online calibration in the simulator (the
// table of docs/evaluation.d/25-calibration.md): on the six Pollux
// workloads in Slurm mode, with each model's true speed perturbed by
// sim.PerturbSpeeds (spreads 2 and 4, and 2 with per-job noise of σ 0.3;
// seeds 1-5), it runs smd without and
// with online calibration (sim.Config.Calibrate) and prints, per spread
// and workload, the average JCT of each, the average JCT over the jobs
// both runs completed, the jobs killed at their time limit, and the time
// model's error (median |log2(real / modelled)| over the finished jobs,
// and |log2(fitted / true factor)| of the final factors).
//
//	go run ./scripts/evalcalib -traces $STRATA_TRACES
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/strata-hpc/strata/sim"
)

func main() {
	traces := flag.String("traces", os.Getenv("STRATA_TRACES"), "the traces folder (peers/pollux_workload*.csv, peers/pollux_scaling.csv)")
	seeds := flag.Int("seeds", 5, "seeds per spread (1..N)")
	flag.Parse()
	if err := run(*traces, *seeds); err != nil {
		fmt.Fprintln(os.Stderr, "evalcalib:", err)
		os.Exit(1)
	}
}

// pair is one workload, spread and seed run without and with calibration.
type pair struct {
	off, on          *sim.Result
	commonOff, comOn float64 // average JCT over the jobs both completed
	factorErr        []float64
}

func run(traces string, seeds int) error {
	peers := filepath.Join(traces, "peers")
	sc, err := readScaling(filepath.Join(peers, "pollux_scaling.csv"))
	if err != nil {
		return err
	}
	fmt.Println("| perturbation | workload | avg JCT s without | with | with / without | same jobs: with / without | time-limit kills without | with | model error without | with | factor error |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, pe := range []sim.SpeedError{{Spread: 2}, {Spread: 4}, {Spread: 2, Noise: 0.3}} {
		label := fmt.Sprintf("spread %g", pe.Spread)
		if pe.Noise > 0 {
			label += fmt.Sprintf(", noise σ %g", pe.Noise)
		}
		var all []pair
		for w := 1; w <= 6; w++ {
			var ps []pair
			for seed := 1; seed <= seeds; seed++ {
				pe.Seed = uint64(seed)
				p, err := runPair(filepath.Join(peers, fmt.Sprintf("pollux_workload%d.csv", w)), sc, pe)
				if err != nil {
					return fmt.Errorf("workload %d, %s, seed %d: %w", w, label, seed, err)
				}
				ps = append(ps, p)
			}
			row(label, fmt.Sprintf("pollux_workload%d (%d seeds)", w, seeds), ps)
			all = append(all, ps...)
		}
		row(label, fmt.Sprintf("**all %d runs** (geometric mean of ratios)", len(all)), all)
	}
	return nil
}

func runPair(trace string, sc *sim.Scaling, pe sim.SpeedError) (pair, error) {
	var p pair
	var truth map[string]float64
	for _, calibrate := range []bool{false, true} {
		tr, err := readTrace(trace)
		if err != nil {
			return p, err
		}
		truth = sim.PerturbSpeeds(tr, pe)
		cfg := sim.Config{Cluster: sim.ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Interval: time.Minute,
			Truth: sim.Truth{Scaling: sc}, Calibrate: calibrate, JobRows: true}
		r, err := sim.RunNamed(context.Background(), cfg, tr, "smd")
		if err != nil {
			return p, err
		}
		if calibrate {
			p.on = r
		} else {
			p.off = r
		}
	}
	done := map[string]float64{}
	for _, j := range p.off.JobRows {
		if j.State == "done" {
			done[j.ID] = *j.JCT
		}
	}
	var n int
	for _, j := range p.on.JobRows {
		if off, ok := done[j.ID]; ok && j.State == "done" {
			p.commonOff += off
			p.comOn += *j.JCT
			n++
		}
	}
	p.commonOff /= float64(max(1, n))
	p.comOn /= float64(max(1, n))
	for _, f := range p.on.Calibration.Factors {
		p.factorErr = append(p.factorErr, math.Abs(math.Log2(f.Factor/truth[f.Model])))
	}
	return p, nil
}

// row prints the means over ps: JCTs arithmetic, ratios geometric, errors
// medians.
func row(label, name string, ps []pair) {
	var off, on, ratio, common, errOff, errOn, ferr []float64
	var kOff, kOn int
	for _, p := range ps {
		off, on = append(off, p.off.AvgJCT), append(on, p.on.AvgJCT)
		ratio = append(ratio, math.Log(p.on.AvgJCT/p.off.AvgJCT))
		common = append(common, math.Log(p.comOn/p.commonOff))
		kOff, kOn = kOff+p.off.TimeLimitKills, kOn+p.on.TimeLimitKills
		errOff, errOn = append(errOff, p.on.Calibration.ErrBefore), append(errOn, p.on.Calibration.ErrAfter)
		ferr = append(ferr, p.factorErr...)
	}
	fmt.Printf("| %s | %s | %.0f | %.0f | %.3f | %.3f | %d | %d | %.2f | %.3f | %.3f |\n", label, name, mean(off), mean(on),
		math.Exp(mean(ratio)), math.Exp(mean(common)), kOff, kOn, median(errOff), median(errOn), median(ferr))
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[(len(s)-1)/2]
}

func readTrace(path string) (*sim.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sim.ReadTrace(f, sim.ReadOptions{})
}

func readScaling(path string) (*sim.Scaling, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sim.ReadScaling(f)
}
